"""The README's promises: the quickstart runs as written, the set-up commands are the ones CI runs."""

import re
import subprocess

import pytest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_quickstart_runs_as_written(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert blocks, "README.md has no python quickstart"
    namespace: dict = {}
    exec(compile(blocks[0], "README.md quickstart", "exec"), namespace)
    out = capsys.readouterr().out
    assert "contract of Definition 2 holds" in out
    assert "Σμ / V_max" in out
    assert "She lives in Riga." in out


def test_every_python_example_in_the_readme_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert len(blocks) >= 2
    for k, block in enumerate(blocks):
        exec(compile(block, f"README.md python block {k}", "exec"), {})
    out = capsys.readouterr().out
    assert "retained" in out and "AgentFold" in out


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "test-command" in ci  # .ci/run extracts the command from the README markers
    section = re.search(r"<!-- test-command -->\n```bash\n(.*?)\n```\n<!-- /test-command -->", README, re.S)
    assert section and "pytest" in section.group(1)
    extracted = subprocess.run(
        ["bash", "-c", "sed -n '/<!-- test-command -->/,/<!-- \\/test-command -->/p' README.md | grep -v '^<!--' "
         "| grep -v '^```' | sed '/^\\s*$/d'"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert extracted == section.group(1).strip()


def test_the_two_setup_commands_are_at_the_top():
    head = README[:800]
    assert head.count("```bash") == 2


def test_the_readme_says_how_to_serve_a_notebook_with_voila():
    """The README's Voila command names a real notebook, and voila comes with the extras it tells to install."""
    import shlex
    import tomllib

    section = re.search(r"<!-- voila-command -->\n```bash\n(.*?)\n```\n<!-- /voila-command -->", README, re.S)
    assert section, "README.md has no Voila section between voila-command markers"
    command = shlex.split(section.group(1).strip())
    while "=" in command[0]:
        command.pop(0)
    assert command[0] == "voila" and (ROOT / command[-1]).is_file(), command
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert any(d.startswith("voila") for d in extras["lab"]), extras["lab"]
    assert '".[lab]"' in README[:800]  # the start command installs the [lab] extras


def test_the_readme_voila_command_finds_its_template_from_an_editable_install(monkeypatch):
    """Voila's own template search, with the README command's variables as seen from the repository's
    folder, finds the ``--template`` it names (an editable install does not copy data-files)."""
    import os
    import shlex

    pytest.importorskip("voila")
    from voila.paths import collect_template_paths

    section = re.search(r"<!-- voila-command -->\n```bash\n(.*?)\n```\n<!-- /voila-command -->", README, re.S)
    command = shlex.split(section.group(1).strip())
    variables = dict(word.split("=", 1) for word in command if re.fullmatch(r"[A-Z_]+=.*", word))
    template = next(word.split("=", 1)[1] for word in command if word.startswith("--template="))
    monkeypatch.setenv("JUPYTER_PATH", os.pathsep.join(str(ROOT / p) for p in variables.get("JUPYTER_PATH", "").split(os.pathsep) if p))
    monkeypatch.chdir(ROOT)
    paths = collect_template_paths(["voila", "nbconvert"], template, prune=True)
    assert any(Path(p, "index.html.j2").is_file() and Path(p).name == template for p in paths), paths
