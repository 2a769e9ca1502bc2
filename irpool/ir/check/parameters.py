"""A Parameter's element_type and shape as OpenVINO reads them (a body Parameter's: the outer input's), and the
precisions a layer's ports declare."""
from __future__ import annotations

from dataclasses import replace

from ..read.dims import compatible, parse_shape, shape_text, text
from ..read.element_types import element_type, parameter_element_type, spellings
from ..read.layer_edge import Layer

# Parameter element types the CPU plugin refuses whatever reads the Parameter (OpenVINO 2026.4.1, measured on AMD EPYC
# family 25 model 17; the refusals are the plugin's own input checks, which do not branch on the CPU)
_PARAMETER_REFUSED = {
    "u1": "the CPU plugin does not compile a u1 input (\"Input image format u1 is not supported yet\")",
    "u3": "the CPU plugin does not compile a u3 input, used or not (\"Input image format u3 is not supported yet\")",
    "u6": "the CPU plugin does not compile a u6 input, used or not (\"Input image format u6 is not supported yet\")",
    "dynamic": "the CPU plugin does not compile an input of dynamic element type (\"Cannot allocate memory for"
               " incompatible descriptors\")",
}


def input_precision(net, layer: Layer):
    """An input port's precision that names no element type (OpenVINO does not read it: a warning); the
    input's type (or None). Output ports are judged for every layer in _Net.layer."""
    for port in layer.inputs:
        if port.precision is not None and element_type(port.precision) is None:
            net.finding("lenient-attribute", f'input port {port.id} precision="{port.precision}" is not an element'
                        " type; OpenVINO does not read an input port's precision", port.line, layer)
    return element_type(layer.inputs[0].precision) if layer.inputs else None


def check_output_precisions(net, layer: Layer) -> None:
    """Every output port must have a precision OpenVINO's reader takes, spelled as it spells them."""
    for port in layer.outputs:
        if port.precision is None and not net.doc.is_snippet:     # (a bare <layer>: a fragment, as specs write)
            net.finding("bad-structure", f"output port {port.id} has no precision: read_model refuses the file"
                        " (\"node <port> is missing mandatory attribute: precision\")", port.line, layer)
        elif port.precision is not None and port.precision not in spellings():
            et = element_type(port.precision)
            near = f' (OpenVINO spells it "{et.precision}" or "{et.name}")' if et else ""
            net.finding("bad-precision", f'output port {port.id} precision="{port.precision}": read_model refuses the'
                        f' file ("Unsupported element type: {port.precision}"){near}', port.line, layer)


class Parameters:
    def parameter(self, layer: Layer) -> None:
        layer = self.parameter_type(layer)
        if (len(layer.outputs) > 1 or layer.inputs) and self.doc.ir_version != "10":
            self.finding("bad-structure", f"a Parameter has one output port and no input, the layer declares"
                         f" {len(layer.outputs)} and {len(layer.inputs)}: read_model refuses the file (\"node index is"
                         " out of range\")", layer.line, layer)
        input_precision(self, layer)
        self.types.parameter(layer)
        if "shape" not in layer.data:
            return
        try:
            shape = parse_shape(layer.data["shape"])
        except ValueError as e:
            self.finding("bad-attribute", f'Parameter shape="{layer.data["shape"]}" is not a shape: {e}',
                         layer.data_line, layer)
            return
        if not layer.outputs:
            return
        port = layer.outputs[0]
        if layer.id in self.inner.forced:
            shape = self._forced_shape(layer, shape)
        self.pending.give((layer.id, port.id), shape)          # OpenVINO takes the shape, not the port's <dim>s
        if shape is None:
            self.finding("bad-rank", f'Parameter shape="{layer.data["shape"]}" is of dynamic rank, which the CPU plugin'
                         " does not compile, whatever reads it (\"CPU plug-in doesn't support Parameter operation with"
                         ' dynamic rank")', layer.data_line, layer)
            return
        what = "Parameter shape" if layer.id not in self.inner.forced else "the shape OpenVINO gives this Parameter"
        if len(port.dims) != len(shape):
            self.finding("shape-mismatch", f"{what} has rank {len(shape)}, its output port {port.id} has"
                         f" rank {len(port.dims)}", port.line, layer)
            return
        for i, (s, d) in enumerate(zip(shape, port.dims)):
            if not compatible(s, d):
                self.finding("shape-mismatch", f"{what} dim {i} is {text(s)}, its output port {port.id}"
                             f" declares {text(d)}", port.dim_lines[i], layer)

    def parameter_type(self, layer: Layer) -> Layer:
        """Its element_type as OpenVINO reads it (a body Parameter's: the outer input's, said where it differs);
        the layer, with the type it takes."""
        et_text = layer.data.get("element_type")
        et = parameter_element_type(et_text)
        forced = self.inner.forced.get(layer.id)        # a body's: the outer input's dims, where from, type
        given = forced[2] if forced is not None else None
        if given is not None and (et_text is None or et is not None and (et_text == et.name
                                                                  or et_text.lower() == "undefined")):
            if et_text != given.name:           # (OpenVINO reads the declared type, checks the body on it, then
                self.inner.differs()            # takes the input's)
                said = f"element_type={et_text}" if et_text is not None else "has no element_type"
                self.finding("precision-mismatch", f"Parameter {said}: OpenVINO gives this body"
                             f" Parameter {given.name}, what {forced[1]} receives", layer.data_line,
                             layer)
            layer = replace(layer, data={**layer.data, "element_type": given.name})
            et_text, et = given.name, given
        if et_text is None:
            self.finding("bad-attribute", "Parameter has no element_type: OpenVINO reads it as dynamic, which the CPU"
                         " plugin does not compile (\"Cannot allocate memory for incompatible descriptors\")",
                         layer.data_line, layer)
        elif et is None:
            self.finding("bad-attribute", f'Parameter element_type="{et_text}" is not an element type OpenVINO'
                         f' reads: read_model refuses the file ("{et_text} is not a member of enum element::Type_t")',
                         layer.data_line, layer)
        elif et_text.lower() not in (et.name, "undefined"):    # (read in any case: F32, Bf16, Undefined; not FP32)
            self.finding("bad-attribute", f'Parameter element_type="{et_text}" is not written as OpenVINO names'
                         f' element types ("{et.name}", in any case): read_model refuses the file ("is not a member'
                         ' of enum element::Type_t")', layer.data_line, layer)
        elif et.name in _PARAMETER_REFUSED:
            self.finding("bad-precision", f"Parameter element_type={et.name}: {_PARAMETER_REFUSED[et.name]}",
                         layer.data_line, layer)
        return layer

    def _forced_shape(self, layer: Layer, declared):
        """A body Parameter's shape as OpenVINO gives it (the outer input's). A declared shape other than that is
        checked too (body(): read_model validates the body on it first); one that does not fit it is a finding."""
        dims, source, _ = self.inner.forced[layer.id]
        if declared != dims:
            self.inner.differs()
        if declared is None or len(declared) != len(dims) or not all(map(compatible, declared, dims)):
            self.finding("shape-mismatch", f'Parameter shape="{layer.data["shape"]}": OpenVINO gives this body'
                         f" Parameter {shape_text(dims)}, what {source} receives (it checks the body on the declared"
                         " shape first, then takes the input's)", layer.data_line, layer)
        return dims
