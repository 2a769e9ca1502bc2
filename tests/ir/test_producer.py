"""A pooling layer's input is what its producer gives, as OpenVINO infers it, not what the layer declares: on
chains of random pooling layers whose every declared dim but the Parameter's is scrambled, check must find
wrong exactly the output dims that differ from what read_model infers (it ignores the declared ones), and
`check --fix` must write, at every port of every pooling layer, the dims read_model infers.
read_model runs in a child process (a refused file is skipped there: its verdict is test_verdict's)."""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import irpool
from irpool.ir.fix import fix
from ovbuild import random_config
from irbuild import layer_data

pytestmark = [pytest.mark.openvino]

pytest.importorskip("openvino")

SHAPES = textwrap.dedent("""
    import json, sys, openvino as ov
    core = ov.Core()
    for path in sys.argv[1:]:
        try:
            model = core.read_model(path)
        except Exception as e:
            print(json.dumps(None), flush=True)
            continue
        print(json.dumps({op.get_friendly_name(): [[str(d) for d in op.get_output_partial_shape(i)]
                                                    for i in range(op.get_output_size())]
                          for op in model.get_ordered_ops()}), flush=True)
""")


def _port(pid, dims, precision="FP32"):
    return f'<port id="{pid}" precision="{precision}">' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>"


def chain(rng) -> str:
    """Parameter -> 1 to 3 pooling layers (f32, 2-D, any version) -> a Result per output, every pooling port's
    spatial dims scrambled (N and C kept: a pooling layer never changes them)."""
    shape = [1, 2] + [int(v) for v in rng.integers(6, 14, size=2)]
    layers = [f'<layer id="0" name="x" type="Parameter" version="opset1"><data shape="{",".join(map(str, shape))}"'
              f' element_type="f32"/><output>{_port(0, shape)}</output></layer>']
    edges, results, src = [], [], (0, 0)

    def scrambled():
        return shape[:2] + [int(v) for v in rng.integers(1, 14, size=2)]
    for k in range(1, int(rng.integers(2, 5))):
        while True:
            cfg = random_config(rng)
            if len(cfg["kernel"]) == 2:
                break
        cfg["dtype"] = "float32"
        outs = 2 if cfg["op"] == "MaxPool" and cfg["version"] >= 8 else 1
        ports = _port(1, scrambled()) + (_port(2, scrambled(), cfg.get("index_element_type", "i64").upper())
                                         if outs == 2 else "")
        layers.append(f'<layer id="{k}" name="p{k}" type="{cfg["op"]}" version="opset{cfg["version"]}"><data'
                      f' {layer_data(cfg)}/><input>{_port(0, scrambled())}</input><output>{ports}</output></layer>')
        edges.append((src, (k, 0)))
        if outs == 2:
            results.append((k, 2))
        src = (k, 1)
    results.append(src)
    for j, (lid, pid) in enumerate(results):
        rid = 100 + j
        layers.append(f'<layer id="{rid}" name="r{j}" type="Result" version="opset1"><input>{_port(0, scrambled())}'
                      "</input></layer>")
        edges.append(((lid, pid), (rid, 0)))
    text = "".join(f'<edge from-layer="{a[0]}" from-port="{a[1]}" to-layer="{b[0]}" to-port="{b[1]}"/>\n'
                   for a, b in edges)
    return ('<?xml version="1.0"?>\n<net name="chain" version="11">\n<layers>\n' + "\n".join(layers) +
            f"\n</layers>\n<edges>\n{text}</edges>\n</net>\n")


def declared(data: bytes) -> dict:
    """{layer name: [[dims of each input port], [dims of each output port]]} as the file declares them."""
    from lxml import etree
    out = {}
    for el in etree.fromstring(data).iter("layer"):
        out[el.get("name")] = [[[d.text for d in p.iter("dim")] for h in el.iterchildren(side)
                                for p in h.iterchildren("port")] for side in ("input", "output")]
    return out


def test_fix_writes_the_dims_read_model_infers_from_each_producer(tmp_path):
    rng = np.random.default_rng(20261124)
    paths = []
    for i in range(60):
        path = tmp_path / f"chain{i}.xml"
        path.write_text(chain(rng))
        paths.append(path)
    run = subprocess.run([sys.executable, "-c", SHAPES, *map(str, paths)], capture_output=True, text=True,
                         check=True)
    inferred = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(inferred) == len(paths)
    compared = 0
    for path, shapes in zip(paths, inferred):
        data = path.read_bytes()
        if shapes is None:                   # read_model refuses it: check must say so, whatever the dims
            assert not irpool.check(data).ok, path.read_text()
            continue
        said = declared(data)                 # what check says each pooling output is: declared, or its fix
        for f in irpool.check(data).findings:
            if f.code == "shape-mismatch" and f.fix and f.layer_name.startswith("p"):
                port = said[f.layer_name][1][int(f.fix["port"]) - 1]
                for i, value in f.fix["dims"]:
                    port[i] = str(value)
        for name, (_, outs) in said.items():
            assert not name.startswith("p") or outs == shapes[name][: len(outs)], (name, path.read_text())
        fixed, _, report = fix(data)
        assert report.ok, (path.read_text(), [str(f) for f in report.findings])
        ports = declared(fixed)
        for name, (ins, outs) in ports.items():
            if not name.startswith("p"):
                continue
            assert outs == shapes[name][: len(outs)], (name, path.read_text())
            src = int(name[1:]) - 1
            assert ins[0] == shapes["x" if src == 0 else f"p{src}"][0], (name, path.read_text())
            compared += 1
    assert compared >= 60                     # most chains are read: the comparison is not vacuous


# -- the type a producer gives ----------------------------------------------------------------------------
def _typed_net(producer: str, in_precision: str, consumer: str) -> tuple:
    """producer -> consumer -> Result, the consumer's input port declaring `in_precision`; (xml, bin bytes)."""
    dims, blob = (1, 2, 4, 4), b""
    if producer.startswith("Const "):
        et = producer.split()[1]
        blob = bytes([1]) * 32 if et in ("boolean", "u8", "i8") else np.ones(32, np.float32).tobytes()
        first = (f'<layer id="0" name="src" type="Const" version="opset1"><data element_type="{et}" shape="1,2,4,4"'
                 f' offset="0" size="{len(blob)}"/><output>{_port(0, dims)}</output></layer>')
        layers, edges = [first], [(0, 0)]
    else:                                            # "Parameter et" or "Convert et" (behind an f32 Parameter)
        kind, et = producer.split()
        first = (f'<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,2,4,4"'
                 f' element_type="{et if kind == "Parameter" else "f32"}"/><output>{_port(0, dims)}</output></layer>')
        layers, edges = [first], [(0, 0)]
        if kind == "Convert":
            layers.append(f'<layer id="1" name="cv" type="Convert" version="opset1"><data destination_type="{et}"/>'
                          f'<input>{_port(0, dims)}</input><output>{_port(1, dims)}</output></layer>')
            edges = [(1, 1)]
    k = len(layers)
    src = edges[-1]
    if consumer == "MaxPool":
        layers.append(f'<layer id="{k}" name="pool" type="MaxPool" version="opset1"><data strides="1,1" pads_begin="0,0"'
                      f' pads_end="0,0" kernel="2,2" rounding_type="floor" auto_pad="explicit"/><input>'
                      f'{_port(0, dims, in_precision)}</input><output>{_port(1, (1, 2, 3, 3))}</output></layer>')
        links = [(src[0], src[1], k, 0), (k, 1, k + 1, 0)]
        out = (1, 2, 3, 3)
    else:                                            # a global ReduceMean: its axes a Const at offset len(blob)
        axes = np.array([2, 3], np.int64).tobytes()
        layers.append(f'<layer id="{k}" name="axes" type="Const" version="opset1"><data element_type="i64" shape="2"'
                      f' offset="{len(blob)}" size="16"/><output>{_port(0, (2,), "I64")}</output></layer>')
        blob += axes
        layers.append(f'<layer id="{k + 1}" name="rm" type="ReduceMean" version="opset1"><data keep_dims="true"/>'
                      f'<input>{_port(0, dims, in_precision)}{_port(1, (2,), "I64")}</input>'
                      f'<output>{_port(2, (1, 2, 1, 1))}</output></layer>')
        links = [(src[0], src[1], k + 1, 0), (k, 0, k + 1, 1), (k + 1, 2, k + 2, 0)]
        k += 1
        out = (1, 2, 1, 1)
    layers.append(f'<layer id="{k + 1}" name="out" type="Result" version="opset1"><input>{_port(0, out)}</input></layer>')
    edge_xml = "".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>' for a, b, c, d in links)
    return (f'<?xml version="1.0"?>\n<net name="typed" version="11"><layers>{"".join(layers)}</layers>'
            f"<edges>{edge_xml}</edges></net>\n"), blob


def test_a_pool_is_judged_on_the_type_its_producer_gives(tmp_path):
    """OpenVINO reads no input port's precision: a pool or reduction takes the type its producer gives (a
    Parameter's or Const's element_type, a Convert's destination_type). check must give OpenVINO's verdict
    whatever the consumer's input port says; the precision-mismatch warnings on declared output ports aside."""
    cases = [(p, prec, c) for p in ("Parameter f32", "Const boolean", "Const f32", "Convert u1", "Convert boolean",
                                    "Convert f16", "Parameter i8")
             for prec in ("FP32", "F8E4M3", "BOOL", "U1", "STRING") for c in ("MaxPool", "ReduceMean")]
    paths = []
    for i, case in enumerate(cases):
        xml, blob = _typed_net(*case)
        path = tmp_path / f"t{i}.xml"
        path.write_text(xml)
        path.with_suffix(".bin").write_bytes(blob)
        paths.append(str(path))
    from plugin import compile_in_child
    verdicts = compile_in_child(paths)
    wrong = []
    for case, path, verdict in zip(cases, paths, verdicts):
        errors = [f for f in irpool.check(path).errors() if f.code != "shape-mismatch"]
        if bool(errors) != (verdict != "ok"):
            wrong.append((case, verdict, [str(f).split(": ", 1)[1][:160] for f in errors]))
    assert not wrong, wrong
    assert sum(v != "ok" for v in verdicts) >= 10 and sum(v == "ok" for v in verdicts) >= 10


def test_a_convert_of_a_string_input_is_refused(tmp_path):
    """A Parameter of each type behind a Convert to f32, then a MaxPool: the CPU plugin cannot convert a string
    (nor take u1/u3 inputs at all); check equals read_model + compile_model on each."""
    import openvino as ov
    import openvino.opset1 as o1
    from plugin import compile_in_child
    q = o1.parameter([1, 2, 4, 4], ov.Type.f32, name="x")
    ov.save_model(ov.Model([o1.max_pool(o1.convert(q, ov.Type.f32), [1, 1], [0, 0], [0, 0], [2, 2]).output(0)], [q]),
                  tmp_path / "base.xml")
    text, paths = (tmp_path / "base.xml").read_text(), []
    for et in ("string", "u3", "boolean", "f16", "i8", "f32"):
        paths.append(str(tmp_path / f"{et}.xml"))
        (tmp_path / f"{et}.xml").write_text(text.replace('element_type="f32"', f'element_type="{et}"', 1))
    verdicts = compile_in_child(paths)
    assert [irpool.check(p).ok for p in paths] == [v == "ok" for v in verdicts], verdicts
    assert verdicts[0] != "ok" and verdicts[-1] == "ok"
