"""The graph as OpenVINO's reader builds it (irpool/ir/graph/built.py): check's bad-graph finding against read_model
itself, on small nets whose edges are edited at random (a cycle, an edge twice, an edge removed or moved to
another port), and on each case explicitly. read_model runs in a child process, since some of these files crash
it (a MaxPool without its input edge: a segmentation fault in OpenVINO 2026.4.1)."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import irpool

pytestmark = [pytest.mark.openvino]

pytest.importorskip("openvino")

DIMS = [1, 2, 4, 4]
READ = textwrap.dedent("""
    import sys, openvino as ov
    core = ov.Core()
    for path in sys.argv[1:]:
        try:
            core.read_model(path)
            print("ok", flush=True)
        except Exception as e:
            print("refused", str(e).strip().splitlines()[-1][:200].replace(chr(10), " "), flush=True)
""")


def read_model_verdicts(paths) -> list:
    """'ok', 'refused ...' or 'crashed' for each file, read_model in child processes (one a crash)."""
    verdicts = []
    while len(verdicts) < len(paths):
        r = subprocess.run([sys.executable, "-c", READ, *map(str, paths[len(verdicts):])], capture_output=True,
                           text=True)
        verdicts += r.stdout.splitlines()
        if r.returncode and len(verdicts) < len(paths):
            verdicts.append(f"crashed (exit status {r.returncode})")
    return verdicts


def _port(pid, precision="FP32"):
    return f'<port id="{pid}" precision="{precision}">' + "".join(f"<dim>{d}</dim>" for d in DIMS) + "</port>"


def _layer(lid, kind):
    if kind == "Parameter":
        return (f'<layer id="{lid}" name="p{lid}" type="Parameter" version="opset1"><data shape="1,2,4,4"'
                f' element_type="f32"/><output>{_port(0)}</output></layer>')
    if kind == "Result":
        return f'<layer id="{lid}" name="r{lid}" type="Result" version="opset1"><input>{_port(0)}</input></layer>'
    if kind == "MaxPool":
        return (f'<layer id="{lid}" name="m{lid}" type="MaxPool" version="opset1"><data strides="1,1" pads_begin="0,0"'
                f' pads_end="0,0" kernel="1,1" rounding_type="floor" auto_pad="explicit"/><input>{_port(0)}</input>'
                f'<output>{_port(1)}</output></layer>')
    return (f'<layer id="{lid}" name="a{lid}" type="Add" version="opset1"><data auto_broadcast="numpy"/><input>'
            f'{_port(0)}{_port(1)}</input><output>{_port(2)}</output></layer>')


OUT_PORT = {"Parameter": 0, "MaxPool": 1, "Add": 2}
IN_PORTS = {"Result": [0], "MaxPool": [0], "Add": [0, 1]}


def net(kinds, edges) -> str:
    """A <net> of the layers `kinds` (id = position) and `edges` (from-layer, to-layer, to-port), one per line."""
    lines = ['<?xml version="1.0"?>', '<net name="g" version="11">', "<layers>"]
    lines += [_layer(i, k) for i, k in enumerate(kinds)] + ["</layers>", "<edges>"]
    lines += [f'<edge from-layer="{a}" from-port="{OUT_PORT[kinds[a]]}" to-layer="{b}" to-port="{p}"/>'
              for a, b, p in edges]
    return "\n".join(lines + ["</edges>", "</net>", ""])


def random_net(rng):
    """A random DAG: Parameters, MaxPools and Adds, each input fed by an earlier layer, and one or two Results."""
    kinds = ["Parameter"] * int(rng.integers(1, 3))
    kinds += [str(rng.choice(["MaxPool", "Add"])) for _ in range(int(rng.integers(1, 6)))]
    kinds += ["Result"] * int(rng.integers(1, 3))
    edges = []
    for b, kind in enumerate(kinds):
        for p in IN_PORTS.get(kind, []):
            producers = [a for a in range(b) if kinds[a] != "Result"]
            edges.append((int(rng.choice(producers[-3:] if kind == "Result" else producers)), b, p))
    return kinds, edges


def edit(rng, kinds, edges):
    """One edit of the edges, as a converter bug or a hand edit would make it; (edges, what was done)."""
    edges = list(edges)
    i = int(rng.integers(len(edges)))
    a, b, p = edges[i]
    how = str(rng.choice(["back", "twice", "remove", "move", "none"]))
    if how == "back":                         # from a later layer (or itself): a cycle where b feeds it
        later = [x for x in range(b, len(kinds)) if kinds[x] != "Result"]
        if not later:
            return edges, "none"
        edges[i] = (int(rng.choice(later)), b, p)
    elif how == "twice":
        edges.insert(int(rng.integers(len(edges) + 1)), (a, b, p))
    elif how == "remove":
        if kinds[b] == "Add" and p == 1:     # an Add left with one input: its op's own refusal, not the graph's
            return edges, "none"
        del edges[i]
    elif how == "move":                       # into the other port of an Add: one port twice, the other bare
        if kinds[b] != "Add":
            return edges, "none"
        edges[i] = (a, b, 1 - p)
    return edges, how


def bad_graph(report) -> bool:
    return any(f.code == "bad-graph" for f in report.findings)


def test_edited_graphs_are_refused_where_read_model_refuses_them(tmp_path):
    """Every edited net: a bad-graph error exactly where read_model refuses or crashes, nothing else found."""
    rng = np.random.default_rng(20261124)
    paths, hows = [], []
    for n in range(150):
        kinds, edges = random_net(rng)
        edges, how = edit(rng, kinds, edges)
        path = tmp_path / f"g{n}.xml"
        path.write_text(net(kinds, edges))
        paths.append(path)
        hows.append(how)
    verdicts = read_model_verdicts(paths)
    seen = {}
    for path, how, verdict in zip(paths, hows, verdicts):
        report = irpool.check(path)
        assert all(f.code == "bad-graph" for f in report.findings), [str(f) for f in report.findings]
        assert bad_graph(report) == (verdict != "ok"), (path.read_text(), verdict, [str(f) for f in report.findings])
        seen[(how, verdict != "ok")] = seen.get((how, verdict != "ok"), 0) + 1
    # the edits made both kinds of file: refused ones of every kind, and files read_model reads
    assert {how for how, refused in seen if refused} >= {"back", "twice", "remove", "move"}, seen
    assert any(not refused for _, refused in seen), seen


CASES = {   # name: (layers, edges); read_model's verdict is found by running it
    "a cycle": (["Parameter", "MaxPool", "MaxPool", "Result"], [(2, 1, 0), (1, 2, 0), (1, 3, 0)]),
    "a layer reading itself": (["Parameter", "MaxPool", "MaxPool", "Result"], [(0, 1, 0), (2, 2, 0), (2, 3, 0)]),
    "a cycle no Result depends on": (["Parameter", "MaxPool", "MaxPool", "Result"], [(0, 1, 0), (1, 3, 0),
                                                                                     (2, 2, 0)]),
    "two edges into one port": (["Parameter", "MaxPool", "Result"], [(0, 1, 0), (0, 1, 0), (1, 2, 0)]),
    "a MaxPool without its input": (["Parameter", "MaxPool", "Result"], [(1, 2, 0)]),
    "a Result without its input": (["Parameter", "MaxPool", "Result"], [(0, 1, 0)]),
    "a MaxPool without its input that no Result reads": (["Parameter", "MaxPool", "Result"], [(0, 2, 0)]),
    "an Add fed only at its second port": (["Parameter", "Add", "Result"], [(0, 1, 1), (1, 2, 0)]),
    "edges listed before their producers": (["Parameter", "Result", "MaxPool"], [(2, 1, 0), (0, 2, 0)]),
}


def test_each_case_as_read_model_says(tmp_path):
    paths = []
    for i, (kinds, edges) in enumerate(CASES.values()):
        paths.append(tmp_path / f"case{i}.xml")
        paths[-1].write_text(net(kinds, edges))
    verdicts = dict(zip(CASES, read_model_verdicts(paths)))
    assert verdicts["a MaxPool without its input that no Result reads"] == "ok"
    assert verdicts["edges listed before their producers"] == "ok"
    for (name, verdict), path in zip(verdicts.items(), paths):
        report = irpool.check(path)
        found = [f for f in report.findings if f.code == "bad-graph"]
        assert bool(found) == (verdict != "ok") and report.ok == (verdict == "ok"), (name, verdict, found)
        for f in found:                                # the layer and the line of the edge or layer at fault
            assert f.layer_id is not None and f.line and f.severity == "error", str(f)
    cycle = [f for f in irpool.check(paths[0]).findings if f.code == "bad-graph"]
    assert len(cycle) == 1 and cycle[0].layer_id == "1" and cycle[0].line == 10 and "node 2 " in cycle[0].message
    (twice,) = irpool.check(paths[3]).findings
    assert twice.layer_id == "1" and twice.line == 10 and "input port 0 has more than one edge" in twice.message
