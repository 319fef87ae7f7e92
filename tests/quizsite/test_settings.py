"""Settings from the environment: production is `check --deploy` clean, mistakes are one line."""

import subprocess

from tests.quizsite.servers import GUNICORN, ROOT, free_port, manage, site_env

PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "a-long-random-production-key-" + "x1y2z3" * 10,
    "ALLOWED_HOSTS": "quiz.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://quiz.example.org",
    "DATABASE_URL": "postgres://quizsite:secret@127.0.0.1:5432/quizsite",
}


def test_production_settings_pass_the_deployment_checklist_without_a_warning():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=site_env(**PRODUCTION))
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_plain_http_production_is_reported_by_the_deployment_checklist():
    env = site_env(**PRODUCTION, HTTPS="false")
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert result.returncode == 1
    assert "security.W012" in result.stderr  # session cookie not secure


def assert_one_line(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def test_missing_secret_key_in_production_is_one_line():
    env = site_env(**(PRODUCTION | {"SECRET_KEY": ""}))
    assert_one_line(manage("check", env=env), "SECRET_KEY must be set when DEBUG is off")


def test_unparseable_database_url_is_one_line():
    env = site_env(**(PRODUCTION | {"DATABASE_URL": "quizsite-db"}))
    assert_one_line(manage("check", env=env), "DATABASE_URL can't be parsed")
    env = site_env(**(PRODUCTION | {"DATABASE_URL": "postgres://u@localhost:port/x"}))
    assert_one_line(manage("migrate", env=env), "DATABASE_URL can't be parsed")


def test_unreachable_database_at_start_up_is_one_line():
    url = f"postgres://postgres@127.0.0.1:{free_port()}/quizsite"
    env = site_env(**(PRODUCTION | {"DATABASE_URL": url}))
    assert_one_line(manage("migrate", "--noinput", env=env), "database error", "Connection refused")


def test_gunicorn_with_a_bad_setting_says_so_in_one_line_and_exits():
    env = site_env(**(PRODUCTION | {"DATABASE_URL": "nonsense"}), PORT=str(free_port()))
    result = subprocess.run(
        [GUNICORN, "--config", "gunicorn.conf.py", "quizsite.wsgi"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "gunicorn: configuration error: DATABASE_URL can't be parsed" in result.stderr


def test_bad_email_settings_are_one_line():
    env = site_env(**PRODUCTION, EMAIL_HOST="smtp.example.org", EMAIL_PORT="five-eight-seven")
    assert_one_line(manage("check", env=env), "EMAIL_PORT must be a whole number")
    env = site_env(**PRODUCTION, EMAIL_HOST="smtp.example.org", EMAIL_USE_TLS="maybe")
    assert_one_line(manage("check", env=env), "EMAIL_USE_TLS must be a boolean")
    env = site_env(**PRODUCTION, EMAIL_HOST="smtp.example.org", EMAIL_HOST_USER="quiz")
    assert_one_line(manage("check", env=env), "EMAIL_HOST_PASSWORD must be set too")
    env = site_env(**PRODUCTION, EMAIL_HOST="smtp.example.org")
    assert_one_line(manage("check", env=env), "set DEFAULT_FROM_EMAIL")


def test_email_goes_to_the_console_unless_an_smtp_host_is_set():
    show = "from django.conf import settings; print(settings.EMAIL_BACKEND)"
    result = manage("shell", "-c", show, env=site_env())
    assert result.stdout.strip().endswith("django.core.mail.backends.console.EmailBackend")
    env = site_env(
        **PRODUCTION, EMAIL_HOST="smtp.example.org", DEFAULT_FROM_EMAIL="quiz@example.org"
    )
    result = manage("shell", "-c", show, env=env)
    assert result.stdout.strip().endswith("backends.smtp.EmailBackend"), result.stderr
