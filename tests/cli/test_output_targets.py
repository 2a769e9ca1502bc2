"""`run -o` and `check --fix` never replace what is not theirs to replace (found by crash hunt 3, stop 60): a FIFO or a
device named as the output was replaced by a regular file (as root, -o /dev/null replaced the system's /dev/null),
-o naming the model or an -i input overwrote it, and a folder-like name or one too long failed only after computing,
naming the temporary file. Each is now refused before anything is computed, the target left as it was."""
import os
import pathlib
import shutil
import threading

import numpy as np
import pytest

from clitool import cli

pytestmark = [pytest.mark.spec]

SMALL = pathlib.Path(__file__).parent.parent.parent / "examples" / "small_net.xml"


@pytest.fixture
def run_dir(tmp_path):
    shutil.copy(SMALL, tmp_path / "m.xml")
    np.save(tmp_path / "x.npy", np.random.default_rng(2).random((1, 4, 16, 16)).astype(np.float32))
    return tmp_path


def _run(folder, out):
    return cli("run", folder / "m.xml", "-i", f"image={folder / 'x.npy'}", "-o", out)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_as_the_output_is_refused_and_left_a_fifo(run_dir):
    os.mkfifo(run_dir / "out.npz")
    r = _run(run_dir, run_dir / "out.npz")
    assert r.returncode == 2 and "is a FIFO, not a regular file" in r.stderr, r.stderr
    assert (run_dir / "out.npz").is_fifo()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fix_does_not_replace_a_fifo_it_read(run_dir):
    wrong = SMALL.read_text().replace("<dim>8</dim>", "<dim>9</dim>", 1)
    os.mkfifo(run_dir / "p.xml")

    def feed():
        with open(run_dir / "p.xml", "w") as f:
            f.write(wrong)
    writer = threading.Thread(target=feed)
    writer.start()
    r = cli("check", "--fix", run_dir / "p.xml")
    writer.join(10)
    assert r.returncode == 2 and "cannot write the fixed file" in r.stdout + r.stderr and "FIFO" in r.stdout + r.stderr
    assert (run_dir / "p.xml").is_fifo()


@pytest.mark.parametrize("which", ["m.xml", "x.npy"])
def test_the_output_may_not_be_a_file_the_run_reads(run_dir, which):
    before = (run_dir / which).read_bytes()
    r = _run(run_dir, run_dir / which)
    assert r.returncode == 2 and "which this run reads" in r.stderr, r.stderr
    assert (run_dir / which).read_bytes() == before


def test_a_folder_name_or_a_name_too_long_is_refused_before_computing(run_dir):
    r = _run(run_dir, str(run_dir / "nonexist") + os.sep)
    assert r.returncode == 2 and "is a folder" in r.stderr and "pooled:" not in r.stdout, r.stdout + r.stderr
    r = _run(run_dir, run_dir / ("a" * 300 + ".npz"))
    assert r.returncode == 2 and "longer than the" in r.stderr and "pooled:" not in r.stdout, r.stdout + r.stderr
    assert sorted(p.name for p in run_dir.iterdir()) == ["m.xml", "x.npy"]
