"""Write IR XML for a layer configuration (see ovbuild.random_config) by hand, with no irpool code.

Used where openvino's Python API would refuse to build the layer at all, so that OpenVINO's read_model and
irpool see the very same bytes.
"""
from __future__ import annotations

PRECISION = {"float32": "FP32", "float16": "FP16", "int32": "I32", "uint8": "U8", "int8": "I8", "int64": "I64"}
ELEMENT = {"float32": "f32", "float16": "f16", "int32": "i32", "uint8": "u8", "int8": "i8", "int64": "i64"}


def _port(pid, dims, precision):
    return (f'<port id="{pid}" precision="{precision}">' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>")


def layer_data(cfg: dict) -> str:
    attrs = dict(strides=cfg["strides"], pads_begin=cfg["pads_begin"], pads_end=cfg["pads_end"],
                 kernel=cfg["kernel"], rounding_type=cfg["rounding_type"], auto_pad=cfg["auto_pad"])
    for k in ("dilations", "index_element_type", "axis"):
        if k in cfg:
            attrs[k] = cfg[k]
    if "exclude_pad" in cfg:
        attrs["exclude-pad"] = "true" if cfg["exclude_pad"] else "false"
    return " ".join(f'{k}="{",".join(map(str, v)) if isinstance(v, (list, tuple)) else v}"' for k, v in attrs.items())


def net_xml(cfg: dict, out_dims=None) -> str:
    """Parameter -> pooling layer -> one Result per output. Output dims default to -1 (unknown)."""
    shape, prec = cfg["shape"], PRECISION[cfg["dtype"]]
    n_out = 2 if cfg["op"] == "MaxPool" and cfg["version"] >= 8 else 1
    out_dims = out_dims or [-1] * len(shape)
    outs = [_port(1, out_dims, prec)]
    if n_out == 2:
        outs.append(_port(2, out_dims, cfg.get("index_element_type", "i64").upper()))
    results = "".join(
        f'<layer id="{2 + i}" name="out{i}" type="Result" version="opset1"><input>{_port(0, out_dims, "FP32")}'
        f"</input></layer>" for i in range(n_out))
    edges = "".join(f'<edge from-layer="1" from-port="{1 + i}" to-layer="{2 + i}" to-port="0"/>' for i in range(n_out))
    return f"""<?xml version="1.0"?>
<net name="hand" version="11">
<layers>
<layer id="0" name="x" type="Parameter" version="opset1">
<data shape="{",".join(map(str, shape))}" element_type="{ELEMENT[cfg["dtype"]]}"/>
<output>{_port(0, shape, prec)}</output>
</layer>
<layer id="1" name="pool" type="{cfg["op"]}" version="opset{cfg["version"]}">
<data {layer_data(cfg)}/>
<input>{_port(0, shape, prec)}</input>
<output>{"".join(outs)}</output>
</layer>
{results}
</layers>
<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>{edges}</edges>
</net>
"""


def hand_net(pool_out, relu_in=None, data='kernel="2,2" strides="2,2" pads_begin="0,0" pads_end="0,0"', crlf=False):
    """Parameter [1,3,32,32] -> MaxPool-1 (declared `pool_out`) -> ReLU (declared `relu_in`) -> Result, written
    by hand with odd spacing, a comment and attributes in an odd order."""
    relu_in = relu_in or pool_out
    dims = lambda ds, pad="\t\t\t\t": "".join(f"{pad}<dim>{d}</dim>\n" for d in ds)  # noqa: E731
    text = f"""<?xml version="1.0" ?>
<net version="11" name="hand">
\t<layers>
\t\t<layer version="opset1" type="Parameter" name="x" id="0">
\t\t\t<data element_type="f32" shape="1,3,32,32"/>
\t\t\t<output><port precision="FP32" id="0">
{dims([1, 3, 32, 32])}\t\t\t</port></output>
\t\t</layer>
\t\t<!-- a comment with <dim>99</dim> in it -->
\t\t<layer name="pool" id="1" version="opset1" type="MaxPool">
\t\t\t<data {data} />
\t\t\t<input><port id="0" precision="FP32">
{dims([1, 3, 32, 32])}\t\t\t</port></input>
\t\t\t<output><port id="1" precision="FP32"><dim> {pool_out[0]} </dim><dim>{pool_out[1]}</dim>
{dims(pool_out[2:])}\t\t\t</port></output>
\t\t</layer>
\t\t<layer id="2" name="relu" type="ReLU" version="opset1">
\t\t\t<input><port id="0" precision="FP32">{"".join(f"<dim>{d}</dim>" for d in relu_in)}</port></input>
\t\t\t<output><port id="1" precision="FP32">{"".join(f"<dim>{d}</dim>" for d in relu_in)}</port></output>
\t\t</layer>
\t\t<layer id="3" name="out" type="Result" version="opset1">
\t\t\t<input><port id="0" precision="FP32">{"".join(f"<dim>{d}</dim>" for d in relu_in)}</port></input>
\t\t</layer>
\t</layers>
\t<edges>
\t\t<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
\t\t<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
\t\t<edge from-layer="2" from-port="1" to-layer="3" to-port="0"/>
\t</edges>
</net>
"""
    return text.replace("\n", "\r\n").encode() if crlf else text.encode()


def _dims(ds):
    return "".join(f"<dim>{d}</dim>" for d in ds)


# {relu} is the ReLU's id where the layer is written, {to}/{frm} where the edges name it; {port} is its output
# port's id, {fp} the edge's from-port naming it; {pool} is the MaxPool's id, written everywhere it is named
_SMALL = f"""<?xml version="1.0"?>
<net name="n" version="11">
<layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,3,8,8" element_type="f32"/>
<output><port id="0" precision="FP32" names="x">{_dims([1, 3, 8, 8])}</port></output></layer>
<layer id="1" name="w" type="Const" version="opset1"><data element_type="f32" shape="4,3,1,1" offset="0" size="48"/>
<output><port id="0" precision="FP32">{_dims([4, 3, 1, 1])}</port></output></layer>
<layer id="2" name="conv" type="Convolution" version="opset1">
<data strides="1,1" dilations="1,1" pads_begin="0,0" pads_end="0,0" auto_pad="explicit"/>
<input><port id="0" precision="FP32">{_dims([1, 3, 8, 8])}</port><port id="1" precision="FP32">{_dims([4, 3, 1, 1])}</port>
</input><output><port id="2" precision="FP32">{_dims([1, 4, 8, 8])}</port></output></layer>
<layer id="{{relu}}" name="relu" type="ReLU" version="opset1"><input><port id="0" precision="FP32">{_dims([1, 4, 8, 8])}
</port></input><output><port id="{{port}}" precision="FP32">{_dims([1, 4, 8, 8])}</port></output></layer>
<layer id="{{pool}}" name="pool" type="MaxPool" version="opset1">
<data strides="2,2" pads_begin="0,0" pads_end="0,0" kernel="2,2" rounding_type="floor" auto_pad="explicit"/>
<input><port id="0" precision="FP32">{_dims([1, 4, 8, 8])}</port></input>
<output><port id="1" precision="FP32"><dim>1</dim><dim>4</dim><dim>{{out}}</dim><dim>4</dim></port></output></layer>
<layer id="5" name="out" type="Result" version="opset1"><input><port id="0" precision="FP32">{_dims([1, 4, 4, 4])}
</port></input></layer>
</layers>
<edges>
<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
<edge from-layer="2" from-port="2" to-layer="{{to}}" to-port="0"/>
<edge from-layer="{{frm}}" from-port="{{fp}}" to-layer="{{pool}}" to-port="0"/>
<edge from-layer="{{pool}}" from-port="1" to-layer="5" to-port="0"/>
</edges>
</net>
"""


def small_net(relu="3", to=None, frm=None, port="1", fp=None, pool="4", out=4) -> str:
    """Parameter -> Const weights (48 bytes) -> Convolution -> ReLU -> MaxPool -> Result, with the ids and the
    MaxPool's output H (`out`) as given, written plainly by default (tests/ir/test_ids.py spells them otherwise)."""
    return _SMALL.format(relu=relu, to=relu if to is None else to, frm=relu if frm is None else frm, port=port,
                      fp=port if fp is None else fp, pool=pool, out=out)
