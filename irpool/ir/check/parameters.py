"""A Parameter's element_type and shape as OpenVINO reads them (a body Parameter's: the outer input's), and the
precisions a layer's ports declare: functions that return what they found (found.Found)."""
from __future__ import annotations

from dataclasses import replace

from ..read.dims import compatible, parse_shape, shape_text, text
from ..read.element_types import element_type, parameter_element_type, spellings
from ..read.layer_edge import Layer
from .found import Found

# Parameter element types the CPU plugin refuses whatever reads the Parameter (OpenVINO 2026.4.1, measured on AMD EPYC
# family 25 model 17; the refusals are the plugin's own input checks, which do not branch on the CPU)
_PARAMETER_REFUSED = {
    "u1": "the CPU plugin does not compile a u1 input (\"Input image format u1 is not supported yet\")",
    "u3": "the CPU plugin does not compile a u3 input, used or not (\"Input image format u3 is not supported yet\")",
    "u6": "the CPU plugin does not compile a u6 input, used or not (\"Input image format u6 is not supported yet\")",
    "dynamic": "the CPU plugin does not compile an input of dynamic element type (\"Cannot allocate memory for"
               " incompatible descriptors\")",
}


def input_precision(layer: Layer) -> tuple:
    """An input port's precision that names no element type (OpenVINO does not read it: a warning): (the input's
    type or None, what is wrong). Output ports are judged for every layer (check_output_precisions)."""
    found = [Found("lenient-attribute", f'input port {port.id} precision="{port.precision}" is not an element type;'
                   " OpenVINO does not read an input port's precision", port.line, layer)
             for port in layer.inputs if port.precision is not None and element_type(port.precision) is None]
    return (element_type(layer.inputs[0].precision) if layer.inputs else None), found


def check_output_precisions(layer: Layer, is_snippet) -> list:
    """Every output port must have a precision OpenVINO's reader takes, spelled as it spells them (a bare <layer>,
    `is_snippet`, is a fragment, as specs write: it may name none)."""
    found = []
    for port in layer.outputs:
        if port.precision is None and not is_snippet:
            found.append(Found("bad-structure", f"output port {port.id} has no precision: read_model refuses the file"
                               " (\"node <port> is missing mandatory attribute: precision\")", port.line, layer))
        elif port.precision is not None and port.precision not in spellings():
            et = element_type(port.precision)
            near = f' (OpenVINO spells it "{et.precision}" or "{et.name}")' if et else ""
            found.append(Found("bad-precision", f'output port {port.id} precision="{port.precision}": read_model'
                               f' refuses the file ("Unsupported element type: {port.precision}"){near}', port.line,
                               layer))
    return found


def parameter(layer: Layer, inner, ir_version) -> tuple:
    """A Parameter as OpenVINO reads it (a body's, `inner`: given the outer input's type and dims): (the layer with
    the type it takes, the shape its output gives or None where that is not known, what is wrong)."""
    layer, found = parameter_type(layer, inner)
    if (len(layer.outputs) > 1 or layer.inputs) and ir_version != "10":
        found.append(Found("bad-structure", f"a Parameter has one output port and no input, the layer declares"
                           f" {len(layer.outputs)} and {len(layer.inputs)}: read_model refuses the file (\"node index"
                           " is out of range\")", layer.line, layer))
    found += input_precision(layer)[1]
    if "shape" not in layer.data:
        return layer, None, found
    try:
        shape = parse_shape(layer.data["shape"])
    except ValueError as e:
        found.append(Found("bad-attribute", f'Parameter shape="{layer.data["shape"]}" is not a shape: {e}',
                           layer.data_line, layer))
        return layer, None, found
    if not layer.outputs:
        return layer, None, found
    if layer.id in inner.forced:
        shape = _forced_shape(layer, shape, inner, found)
    found += _shape_findings(layer, shape, layer.id in inner.forced)
    return layer, (shape,), found


def _shape_findings(layer: Layer, shape, forced) -> list:
    """A Parameter's shape (`forced`: the one OpenVINO gives a body Parameter) against its output port's dims."""
    port = layer.outputs[0]
    if shape is None:
        return [Found("bad-rank", f'Parameter shape="{layer.data["shape"]}" is of dynamic rank, which the CPU plugin'
                      " does not compile, whatever reads it (\"CPU plug-in doesn't support Parameter operation with"
                      ' dynamic rank")', layer.data_line, layer)]
    what = "the shape OpenVINO gives this Parameter" if forced else "Parameter shape"
    if len(port.dims) != len(shape):
        return [Found("shape-mismatch", f"{what} has rank {len(shape)}, its output port {port.id} has rank"
                      f" {len(port.dims)}", port.line, layer)]
    return [Found("shape-mismatch", f"{what} dim {i} is {text(s)}, its output port {port.id} declares {text(d)}",
                  port.dim_lines[i], layer) for i, (s, d) in enumerate(zip(shape, port.dims)) if not compatible(s, d)]


def parameter_type(layer: Layer, inner) -> tuple:
    """Its element_type as OpenVINO reads it (a body Parameter's: the outer input's, said where it differs): (the
    layer, with the type it takes; what is wrong)."""
    et_text = layer.data.get("element_type")
    et = parameter_element_type(et_text)
    forced = inner.forced.get(layer.id)        # a body's: the outer input's dims, where from, type
    given, found = forced[2] if forced is not None else None, []
    if given is not None and (et_text is None or et is not None and (et_text == et.name
                                                              or et_text.lower() == "undefined")):
        if et_text != given.name:           # (OpenVINO reads the declared type, checks the body on it, then
            inner.differs()                 # takes the input's)
            said = f"element_type={et_text}" if et_text is not None else "has no element_type"
            found.append(Found("precision-mismatch", f"Parameter {said}: OpenVINO gives this body Parameter"
                               f" {given.name}, what {forced[1]} receives", layer.data_line, layer))
        layer = replace(layer, data={**layer.data, "element_type": given.name})
        et_text, et = given.name, given
    return layer, found + _type_findings(layer, et_text, et)


def _type_findings(layer: Layer, et_text, et) -> list:
    """A Parameter's element_type as written (`et_text`) and as read (`et`): what read_model or the plugin refuses."""
    if et_text is None:
        said = ("bad-attribute", "Parameter has no element_type: OpenVINO reads it as dynamic, which the CPU plugin"
                " does not compile (\"Cannot allocate memory for incompatible descriptors\")")
    elif et is None:
        said = ("bad-attribute", f'Parameter element_type="{et_text}" is not an element type OpenVINO reads:'
                f' read_model refuses the file ("{et_text} is not a member of enum element::Type_t")')
    elif et_text.lower() not in (et.name, "undefined"):    # (read in any case: F32, Bf16, Undefined; not FP32)
        said = ("bad-attribute", f'Parameter element_type="{et_text}" is not written as OpenVINO names element types'
                f' ("{et.name}", in any case): read_model refuses the file ("is not a member of enum'
                ' element::Type_t")')
    elif et.name in _PARAMETER_REFUSED:
        said = ("bad-precision", f"Parameter element_type={et.name}: {_PARAMETER_REFUSED[et.name]}")
    else:
        return []
    return [Found(*said, layer.data_line, layer)]


def _forced_shape(layer: Layer, declared, inner, found):
    """A body Parameter's shape as OpenVINO gives it (the outer input's). A declared shape other than that is
    checked too (Bodies.body: read_model validates the body on it first); one that does not fit it is a finding."""
    dims, source, _ = inner.forced[layer.id]
    if declared != dims:
        inner.differs()
    if declared is None or len(declared) != len(dims) or not all(map(compatible, declared, dims)):
        found.append(Found("shape-mismatch", f'Parameter shape="{layer.data["shape"]}": OpenVINO gives this body'
                           f" Parameter {shape_text(dims)}, what {source} receives (it checks the body on the"
                           " declared shape first, then takes the input's)", layer.data_line, layer))
    return dims
