"""Memory stays flat at any file size: check, explain and run of a generated IR of over 1 GiB, each in a
child process, peak RSS under 150 MB (the arrays run computes here are 128 bytes each); and check of one
whose every layer has a shape of its own."""
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import bigir

pytestmark = [pytest.mark.spec]

LIMIT_MB = 150

# A launcher that runs the command in a process of its own and prints that process's peak RSS as getrusage
# reports it: the launcher is small, so the peak cannot be a big parent's (ru_maxrss outlives fork + exec).
LAUNCH = ("import resource, subprocess, sys\n"
          "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
          "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
          "print(done.returncode, peak, done.stderr[-2000:].replace(chr(10), ' '))\n")


@pytest.fixture
def big_dir(tmp_path):
    """tmp_path, emptied when the test ends, pass or fail: the files are gigabytes."""
    yield tmp_path
    shutil.rmtree(tmp_path, ignore_errors=True)


@pytest.mark.slow
def test_check_explain_and_run_of_a_file_over_a_gibibyte_stay_under_150_mb(big_dir):
    tmp_path = big_dir
    size = (1 << 30) + (64 << 20)
    free = shutil.disk_usage(tmp_path).free
    if free < 3 * size:                  # (machines here have been seen with 287 MB free)
        pytest.skip(f"{free / 1e9:.1f} GB free in {tmp_path}: the test writes two files of {size / 1e9:.2f} GB")
    xml, distinct = tmp_path / "big.xml", tmp_path / "distinct.xml"
    layers = bigir.write(xml, size)
    shapes = bigir.write_distinct(distinct, size)
    assert xml.stat().st_size > 1 << 30 and distinct.stat().st_size > 1 << 30
    x = np.arange(np.prod(bigir.SHAPE), dtype=np.float32).reshape(bigir.SHAPE)
    np.save(tmp_path / "x.npy", x)
    irpool = [sys.executable, "-m", "irpool"]
    commands = {
        "check": irpool + ["check", "--max-bytes", "2G", str(xml)],
        "explain": irpool + ["explain", "--max-bytes", "2G", str(xml)],
        "run": irpool + ["run", "--max-bytes", "2G", str(xml), "-i", f"x={tmp_path / 'x.npy'}",
                         "-o", str(tmp_path / "y.npz")],
        "check, every shape new": irpool + ["check", "--max-bytes", "2G", str(distinct)],
    }
    children = {name: subprocess.Popen([sys.executable, "-c", LAUNCH] + cmd, stdout=subprocess.PIPE, text=True)
                for name, cmd in commands.items()}
    peaks = {}
    for name, child in children.items():
        out, _ = child.communicate()
        code, peak, err = out.split(" ", 2)
        assert code == "0", (name, err)
        peaks[name] = float(peak)
    print(f"{layers} pooling layers, {xml.stat().st_size / 1e9:.2f} GB; {shapes} layers of distinct shapes,"
          f" {distinct.stat().st_size / 1e9:.2f} GB: peak RSS MB {peaks}")
    assert all(p < LIMIT_MB for p in peaks.values()), peaks
    with np.load(tmp_path / "y.npz") as out:
        np.testing.assert_array_equal(out["y"], bigir.expected(x))


def test_layer_table_answers_as_a_dict_would():
    """Ids numeric and not, sparse and dense, names with any characters or none, across compressed blocks."""
    import random

    from irpool.ir.read.table import LayerTable
    rng, table, ref = random.Random(7), LayerTable(), {}
    for i in range(150000):            # past the first 65,536 rows, kept in a dict
        lid = rng.choice([str(i * 3), str(rng.randrange(10 ** 12)), f"x{i}", "0" + str(i), "٣" + str(i)])
        if lid in ref:
            continue
        name = None if rng.random() < 0.01 else "blöck/€/" * rng.randrange(8) + str(i) + "\udcff" * (i % 5 == 0)
        ref[lid] = (table.add(lid, name, i), name, i)
    assert len(table) == len(ref)
    for lid, (row, name, value) in rng.sample(sorted(ref.items()), len(ref)):
        assert (table.row(lid), table.id(row), table.value[row]) == (row, lid, value)
    # every name in row order (a name's block is decompressed once), then a few hundred in random order
    assert [table.name(row) for row, _, _ in sorted(ref.values())] == [name for _, name, _ in sorted(ref.values())]
    for lid, (row, name, value) in rng.sample(sorted(ref.items()), 300):
        assert table.name(row) == name
    for missing in ("1", "2", str(3 * 150000 + 1), "y", "00", ""):
        assert table.row(missing) is None or missing in ref


def test_layer_table_of_ids_that_are_their_rows_answers_as_a_dict_would():
    """Ids as OpenVINO writes them (each its row) keep no id arrays; a later id that is not its row puts the rows
    before it into them. Names past 255 bytes and values past int16 too."""
    import random

    from irpool.ir.read.table import LayerTable
    rng = random.Random(11)
    for break_at in (None, 70000, 100000):
        table, ref = LayerTable(), {}
        for i in range(120000):
            lid = str(i) if break_at is None or i < break_at else str(i * 2 + 5)
            name = None if rng.random() < 0.01 else "n" * rng.choice([1, 254, 255, 256, 700]) + str(i)
            value = rng.choice([i % 7, -1 - i, 40000 + i])
            ref[lid] = (table.add(lid, name, value), name, value)
        assert table._identity == (break_at is None)
        for lid, (row, name, value) in rng.sample(sorted(ref.items()), 5000):
            assert (table.row(lid), table.id(row), table.value[row]) == (row, lid, value)
        assert [table.name(row) for row, _, _ in sorted(ref.values())] == [name for _, name, _ in sorted(ref.values())]
        for lid, (row, name, value) in rng.sample(sorted(ref.items()), 300):
            assert table.name(row) == name
        for missing in ("120000", "-1", "00", "x", str(10 ** 9)):
            assert table.row(missing) is None or missing in ref


def _peaks(commands: dict) -> dict:
    """Each command in a child process of its own, two at a time: its peak RSS in MB (the exit status must be 0)."""
    peaks, names = {}, list(commands)
    for i in range(0, len(names), 2):
        children = {n: subprocess.Popen([sys.executable, "-c", LAUNCH] + commands[n], stdout=subprocess.PIPE, text=True)
                    for n in names[i:i + 2]}
        for name, child in children.items():
            out, _ = child.communicate()
            code, peak, err = out.split(" ", 2)
            assert code == "0", (name, err)
            peaks[name] = float(peak)
    return peaks


@pytest.mark.slow
def test_memory_does_not_grow_with_the_layers_that_are_not_pooling(big_dir):
    """A file laid out as a real model's (Const weights, Convolution, Relu, Add, a pool every tenth block):
    check, explain and run --layer of its last pool peak under 150 MB at 200 MB and at 1 GB, and the 1 GB file
    costs at most 10 MB more than the 200 MB one (issue 32: 170 MB and 292 MB before, for 200 and 400 MB)."""
    tmp_path = big_dir
    if shutil.disk_usage(tmp_path).free < 4 << 30:
        pytest.skip("the test writes 1.4 GB of files")
    x = tmp_path / "x.npy"
    np.save(x, np.random.default_rng(0).random(bigir.MODEL_SHAPE).astype(np.float32))
    irpool = [sys.executable, "-m", "irpool"]
    commands = {}
    for size, tag in ((200 << 20, "200 MB"), (1 << 30, "1 GB")):
        path = tmp_path / f"model_{tag[:-3]}.xml"
        _, last = bigir.write_model_like(path, size)
        commands[f"check {tag}"] = irpool + ["check", "--max-bytes", "2G", str(path)]
        commands[f"explain {tag}"] = irpool + ["explain", "--max-bytes", "2G", str(path)]
        commands[f"run --layer {tag}"] = irpool + ["run", "--max-bytes", "2G", str(path), "--layer", last, "-i",
                                                  f"0={x}", "-o", str(tmp_path / f"y_{tag[:-3]}.npz")]
    peaks = _peaks(commands)
    print(f"peak RSS MB: {peaks}")
    assert all(p < LIMIT_MB for p in peaks.values()), peaks
    for what in ("check", "explain", "run --layer"):
        assert peaks[f"{what} 1 GB"] - peaks[f"{what} 200 MB"] <= 10, (what, peaks)


def test_layers_read_as_one_group_still_answer_for_themselves():
    """run keeps one Layer for layers alike but for names; a refusal at the second still names the second,
    at its own lines (here the second receives the first's 2x2 output, which its 3x3 kernel does not fit;
    OpenVINO takes what the producer gives, whatever the second's input port declares)."""
    import irpool

    def port(pid, dims, names=""):
        inner = "".join(f"\n          <dim>{d}</dim>" for d in dims)
        return f'\n        <port id="{pid}" precision="FP32"{names}>{inner}\n        </port>'

    def pool(lid, name):
        return (f'\n    <layer id="{lid}" name="{name}" type="MaxPool" version="opset1">'
                '\n      <data strides="1,1" kernel="3,3" pads_begin="0,0" pads_end="0,0"/>'
                f'\n      <rt_info><attribute name="fused_names" version="0" value="{name}"/></rt_info>'
                f'\n      <input>{port(0, [1, 1, 4, 4])}\n      </input>'
                f'\n      <output>{port(1, [1, 1, 2, 2], f" names={chr(34)}{name}:0{chr(34)}")}\n      </output>'
                '\n    </layer>')
    xml = ('<net name="n" version="11">\n  <layers>'
           '\n    <layer id="0" name="x" type="Parameter" version="opset1">'
           f'\n      <data shape="1,1,4,4" element_type="f32"/>\n      <output>{port(0, [1, 1, 4, 4])}\n      </output>'
           f'\n    </layer>{pool(1, "first")}{pool(2, "second")}'
           f'\n    <layer id="3" name="y" type="Result" version="opset1">\n      <input>{port(0, [1, 1, 2, 2])}'
           '\n      </input>\n    </layer>\n  </layers>\n  <edges>'
           '\n    <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>'
           '\n    <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>'
           '\n    <edge from-layer="2" from-port="1" to-layer="3" to-port="0"/>\n  </edges>\n</net>\n')
    lines = xml.split("\n")
    second = next(i for i, ln in enumerate(lines, 1) if 'name="second"' in ln)
    program = irpool.load(xml)
    assert len(program.groups) == 2                         # the two MaxPools, and the Result
    try:
        program.run({"x": np.zeros((1, 1, 4, 4), np.float32)})
    except irpool.IRError as e:
        assert (e.layer_id, e.layer_name, e.line) == ("2", "second", second), (e.layer_id, e.layer_name, e.line)
    else:
        raise AssertionError("the second layer's 3x3 kernel on its 2x2 input was not refused")


def test_signatures_kept_as_bytes_give_the_same_findings(tmp_path):
    """Past the first distinct port signatures, check keeps each new one marshalled in compressed blocks; the
    edge check reads them back and finds the same, at the same lines, naming the same layers."""
    from unittest import mock

    import irpool
    signatures = sys.modules["irpool.ir.graph.signatures"]
    assert bigir.write_distinct(tmp_path / "d.xml", 1000, block=40) == 40
    net = (tmp_path / "d.xml").read_text()
    # break three edges: a late layer's input dims, a port id, a layer id
    broken = net.replace('<port id="0" precision="FP32"><dim>1</dim><dim>31</dim>',
                         '<port id="0" precision="FP32"><dim>1</dim><dim>30</dim>') \
        .replace('from-layer="20" from-port="1"', 'from-layer="20" from-port="7"') \
        .replace('to-layer="35"', 'to-layer="3500"')
    want = [str(f) for f in irpool.check(broken).findings]
    # (no Result reads the chain: OpenVINO never builds it, so the two missing ends are unbuilt warnings)
    assert [f.split("[")[1].split("]")[0] for f in want] == ["unbuilt", "edge-mismatch", "unbuilt"], want
    with mock.patch.object(signatures, "_SIGNATURES", 2):
        assert [str(f) for f in irpool.check(broken).findings] == want


EXAMPLES = pathlib.Path(__file__).parent.parent.parent / "examples"


@pytest.mark.parametrize("verb, net", [("check", "model_like"), ("check", "torch_pools"), ("explain", "torch_pools"),
                                       ("explain", "chain"), ("run", "chain")])
def test_nothing_a_call_made_waits_for_the_cycle_collector(verb, net, tmp_path):
    """What check, explain and run build is freed when they return: no reference cycle keeps it (one kept every
    checked document's tree until Python's next collection, which then freed several at once: memory that grew
    with the calls, and every third check of DenseNet-121 in a loop 7-10 ms slower; another, the closure that
    folds a shape input, torch_pools' ShapeOf -> Range -> Squeeze)."""
    import gc

    import irpool
    xml = tmp_path / "m.xml"
    if net == "model_like":
        bigir.write_model_like(xml, 200_000)
    elif net == "chain":
        bigir.write(xml, 100_000)
    else:
        xml = EXAMPLES / f"{net}.xml"
    calls = {"check": lambda: irpool.check(xml), "explain": lambda: irpool.explain(xml),
             "run": lambda: irpool.load(xml).run({"x": np.ones(bigir.SHAPE, np.float32)})}
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        calls[verb]()
        assert gc.collect() == 0, sorted({type(o).__name__ for o in gc.garbage})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
