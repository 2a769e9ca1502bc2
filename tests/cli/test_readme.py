"""README's examples cannot go stale: every `$ command` of its console blocks runs (bash, from a folder
holding a copy of examples/) and prints what README shows, with the exit status its `# exit N` comment
gives (0 without one); every python block runs. `...` alone on a line stands for any lines, and a line
ending in `...` for any line that starts with the rest. docs/codes.md is what `irpool codes --markdown`
makes of schemas/codes.json, and every docs/ link of README names a file that exists."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from irpool.codes import markdown

pytestmark = [pytest.mark.spec]

ROOT = pathlib.Path(__file__).parent.parent.parent
README = (ROOT / "README.md").read_text()


def _blocks(kind):
    return re.findall(rf"```{kind}\n(.*?)```", README, re.S)


def _matches(expected: list, got: list) -> bool:
    if not expected:
        return not got
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(_matches(rest, got[i:]) for i in range(len(got) + 1))
    if not got:
        return False
    ok = got[0].startswith(head[:-3]) if head.endswith("...") else got[0] == head
    return ok and _matches(rest, got[1:])


def _commands(block: str):
    """(command, exit status, expected output lines) for each `$ ` line of a console block."""
    out = []
    for line in block.splitlines():
        if line.startswith("$ "):
            command, _, comment = line[2:].partition("  #")
            m = re.search(r"exit (\d+)", comment)
            out.append([command.strip(), int(m.group(1)) if m else 0, []])
        else:
            out[-1][2].append(line)
    return out


@pytest.fixture()
def folder(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    return tmp_path


def test_readme_console_examples(folder):
    env = dict(os.environ, NO_COLOR="1", PATH=f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    blocks = _blocks("console")
    assert len(blocks) >= 5
    for block in blocks:
        for command, status, expected in _commands(block):
            r = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
                               timeout=300)
            got = (r.stdout + r.stderr).splitlines()
            assert r.returncode == status, (command, r.returncode, r.stdout, r.stderr)
            assert _matches(expected, got), (command, "\n".join(got))


def test_readme_python_examples(folder, monkeypatch):
    monkeypatch.chdir(folder)
    blocks = _blocks("python")
    assert len(blocks) == 3
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def test_readme_install_commands_come_first():
    shell = _blocks("sh")
    assert shell[0].strip().endswith(".xml") and "pip install ." in shell[0]
    assert 'pip install -e ".[test]"' in shell[1] and shell[1].strip().endswith("python -m pytest")


def test_docs_codes_is_generated_from_the_data():
    assert (ROOT / "docs" / "codes.md").read_text() == markdown()


def test_readme_links_name_files_that_exist():
    links = re.findall(r"\]\(((?:docs/)[^)#]+)", README)
    assert links and all((ROOT / link).is_file() for link in links), links


def test_readme_configuration_is_what_irpool_reads(tmp_path):
    from irpool.config import read
    (block,) = _blocks("toml")
    (tmp_path / "pyproject.toml").write_text(block)
    cfg = read(str(tmp_path / "pyproject.toml"))
    assert cfg["ignore"] == {"unknown-attribute"} and cfg["strict"] is True and cfg["exclude"]


def test_the_pre_commit_hook_readme_names_exists():
    import yaml
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (block,) = [b for b in _blocks("yaml") if "hooks:" in b]
    assert yaml.safe_load(block)["repos"][0]["hooks"][0]["id"] in [h["id"] for h in hooks]
