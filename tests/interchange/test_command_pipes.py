"""The commands that print files and plans, read by a pipe that closes early (`| head -1`,
`| true`): they end quietly, as they would have, with no BrokenPipeError traceback (issue
23, item 5). Real processes and pipes, on a SQLite database of their own."""

import shlex
import subprocess

import pytest

from tests.quizsite.servers import PYTHON, ROOT, manage, site_env


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pipes")
    env = site_env(
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}", MEDIA_ROOT=str(folder / "media")
    )
    for command in (["migrate", "--noinput"], ["loaddemo"]):
        result = manage(*command, env=env)
        assert result.returncode == 0, result.stderr
    gift = manage("exportquiz", "data-parallelism-quiz", "--format", "gift", env=env).stdout
    (folder / "dp.gift").write_text(gift)
    return folder, env


def piped(command: str, reader: str, env: dict) -> subprocess.CompletedProcess:
    """`manage.py COMMAND | READER`, its status the command's own."""
    line = f"{shlex.quote(PYTHON)} manage.py {command} | {reader}; exit ${{PIPESTATUS[0]}}"
    return subprocess.run(
        ["bash", "-c", line],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        errors="replace",  # exportcontent writes a zip.
        timeout=120,
    )


@pytest.mark.parametrize(
    ("command", "reader"),
    [
        ("exportquiz data-parallelism-quiz --format gift", "head -1"),
        # `true` reads nothing: every write finds the pipe closed, however short the output.
        ("exportquiz data-parallelism-quiz --format moodle-xml", "true"),
        ("exportcontent", "true"),
        ("importquiz {folder}/dp.gift --dry-run", "head -1"),
        ("importcontent {folder}/dp.gift --dry-run", "true"),
    ],
)
def test_a_reader_that_stops_reading_ends_the_command_quietly(site, command, reader):
    folder, env = site
    result = piped(command.format(folder=folder), reader, env)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "BrokenPipeError" not in result.stderr
    if reader.startswith("head"):
        assert result.stdout.count("\n") == 1


def test_an_import_whose_reader_is_gone_is_still_written(site):
    folder, env = site
    edited = (folder / "dp.gift").read_text().replace("[markdown]", "[markdown]Edited: ", 1)
    (folder / "edited.gift").write_text(edited)
    result = piped(f"importquiz {folder}/edited.gift", "true", env)
    assert result.returncode == 0, result.stderr
    again = manage("importquiz", str(folder / "edited.gift"), env=env)
    assert again.stdout.startswith("Nothing to change."), again.stdout + again.stderr
