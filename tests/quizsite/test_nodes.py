"""Two web nodes behind the proxy, for real: Debian's nginx with the configuration `make serve
NODES=2` writes (`manage.py proxy_config`, PROXY_UPSTREAMS), two gunicorn nodes on ports of
their own, one PostgreSQL, a Redis (REDIS_URL) or none. Each node is also asked directly, as
the proxy would send a request to it."""

import http.client
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode

import psycopg
import pytest
import redis

from bench.bench import Browser, Failure, Recorder, take_quiz
from tests.quizsite.servers import (
    GUNICORN,
    NGINX,
    ROOT,
    ThrowawayPostgres,
    ThrowawayRedis,
    free_port,
    manage,
    site_env,
    wait_for_http,
)

# These tests share one cluster (and time the proxy's failover): they take turns, on one worker.
pytestmark = pytest.mark.xdist_group("nodes")
QUIZ = "data-parallelism-quiz"
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
CHOICE = re.compile(r'name="choice" value="(\d+)"')
EDITOR, PASSWORD = "nodeeditor", "a-long-passphrase-for-nodes"


class Cluster:
    def __init__(self, folder: Path, postgres: ThrowawayPostgres, redis: ThrowawayRedis) -> None:
        self.folder = folder
        self.postgres = postgres
        self.redis = redis
        self.port = free_port()  # The proxy's.
        self.node_ports = [free_port(), free_port()]
        self.nodes: list[subprocess.Popen | None] = [None, None]
        self.shared: bool | None = None
        self.access_log = folder / "access.log"
        self.env = site_env(
            DEBUG="false",
            HTTPS="false",
            SECRET_KEY="nodes-test-" + "k" * 50,
            ALLOWED_HOSTS="127.0.0.1",
            DATABASE_URL=postgres.url,
            HOST="127.0.0.1",
            PORT=str(self.port),
            PROXY_UPSTREAMS=" ".join(f"127.0.0.1:{port}" for port in self.node_ports),
            PROXY_ACCESS_LOG=str(self.access_log),
            TRUSTED_PROXY_COUNT="1",
            STATIC_ROOT=str(folder / "static"),
            MEDIA_ROOT=str(folder / "media"),
            WEB_CONCURRENCY="2",
            AXES_FAILURE_LIMIT="3",
            SIGNUP_LIMIT_PER_HOUR="3",
            ATTEMPT_STARTS_PER_LEARNER_PER_HOUR="1000000",
            ATTEMPT_STARTS_PER_ADDRESS_PER_HOUR="1000000",
        )

    def start_node(self, index: int) -> None:
        port = self.node_ports[index]
        env = self.env | {"GUNICORN_BIND": f"127.0.0.1:{port}"}
        if self.shared:
            env["REDIS_URL"] = self.redis.url
        log = self.folder / f"gunicorn-{index + 1}.log"
        env["GUNICORN_CMD_ARGS"] = f"--access-logfile {log} --error-logfile {log}"
        # A session of its own: killing the node kills its master and its workers, as a host
        # that dies takes them all.
        self.nodes[index] = subprocess.Popen(
            [GUNICORN, "--config", "gunicorn.conf.py", "quizsite.wsgi"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def log(self, index: int) -> str:
        return (self.folder / f"gunicorn-{index + 1}.log").read_text()

    def kill_node(self, index: int) -> None:
        """SIGKILL to the node's master and workers, as when its host dies."""
        node = self.nodes[index]
        if node is not None:
            os.killpg(node.pid, signal.SIGKILL)
            node.wait(timeout=30)
            self.nodes[index] = None

    def use(self, *, shared: bool) -> None:
        """Both nodes running, with Redis as their cache (shared) or each its own memory."""
        if self.shared == shared and all(self.nodes):
            return
        for index in range(2):
            self.kill_node(index)
        self.shared = shared
        for index in range(2):
            self.start_node(index)
        for port in self.node_ports:
            wait_for_http(f"http://127.0.0.1:{port}/healthz")

    def sql(self, query: str, *args) -> list[tuple]:
        with psycopg.connect(self.postgres.url.replace("postgres://", "postgresql://")) as db:
            cursor = db.execute(query, args)
            return cursor.fetchall() if cursor.description else []


@pytest.fixture(scope="module")
def cluster():
    # A short path: the proxy's prefix folder, and Redis's.
    folder = Path(tempfile.mkdtemp(prefix="qs-nodes-"))
    folder.chmod(0o755)  # Run as root, nginx's workers are nobody: they must reach the files.
    postgres = ThrowawayPostgres()
    postgres.start()
    redis = ThrowawayRedis(folder)
    redis.start()
    cluster = Cluster(folder, postgres, redis)
    env = cluster.env | {"DJANGO_SUPERUSER_PASSWORD": PASSWORD}
    # Collecting while migrating; then the demo content and an editor at once.
    with ThreadPoolExecutor() as pool:
        collected = pool.submit(manage, "collectstatic", "--noinput", env=env)
        migrated = manage("migrate", "--noinput", env=env)
        assert migrated.returncode == 0, migrated.stderr
        editor = ["createsuperuser", "--noinput", "--username", EDITOR, "--email", "e@example.org"]
        done = [pool.submit(manage, "loaddemo", env=env), pool.submit(manage, *editor, env=env)]
        for result in (future.result() for future in [*done, collected]):
            assert result.returncode == 0, result.stderr
    config = manage("proxy_config", env=cluster.env)
    assert config.returncode == 0, config.stderr
    prefix = folder / "nginx"
    for path in (prefix / "logs", prefix / "temp"):
        path.mkdir(parents=True)
    (prefix / "nginx.conf").write_text(config.stdout)
    nginx = subprocess.Popen(
        [NGINX, "-p", f"{prefix}/", "-c", "nginx.conf", "-e", "logs/error.log"]
        + ["-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield cluster
    finally:
        nginx.terminate()
        nginx.wait(timeout=30)
        for index in range(2):
            cluster.kill_node(index)
        redis.stop()
        postgres.stop()
        shutil.rmtree(postgres.folder, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)


class Visitor:
    """One visitor's cookies, from one address (X-Forwarded-For, which the nodes trust from
    their proxy), sent to the proxy or to one node's port."""

    def __init__(self, address: str = "127.0.0.1") -> None:
        self.address = address
        self.cookies: dict[str, str] = {}

    def request(self, port: int, method: str, path: str, form=None) -> tuple[int, str, str]:
        headers = {
            "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()),
            "X-Forwarded-For": self.address,
        }
        body = None
        if form is not None:
            body = urlencode(form, doseq=True)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            content = response.read().decode()
        finally:
            connection.close()
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            self.cookies[name] = rest.split(";", 1)[0]
        return response.status, response.headers.get("Location", ""), content

    def get(self, port: int, path: str) -> tuple[int, str, str]:
        return self.request(port, "GET", path)

    def post(self, port: int, path: str, form: dict, page_path: str | None = None):
        """POST `form` with the CSRF token of the page at `page_path` (`path` itself if None)."""
        status, _, page = self.get(port, page_path or path)
        assert status == 200, (status, page_path or path)
        return self.request(port, "POST", path, {"csrfmiddlewaretoken": token(page), **form})


def token(page: str) -> str:
    return CSRF.search(page).group(1)


class FormFields(HTMLParser):
    """What a browser would send of a page's form with this id, as it stands."""

    def __init__(self, form_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.form_id, self.inside = form_id, False
        self.fields: list[tuple[str, str]] = []
        self.select: str | None = None
        self.textarea: str | None = None
        self.text = ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.inside = attrs.get("id") == self.form_id
        if not self.inside or "name" not in attrs and tag != "option":
            return
        if tag == "input":
            kind = attrs.get("type", "text")
            if kind in ("submit", "button", "file", "image", "reset"):
                return
            if kind in ("checkbox", "radio") and "checked" not in attrs:
                return
            self.fields.append(
                (attrs["name"], attrs.get("value") or ("on" if kind == "checkbox" else ""))
            )
        elif tag == "select":
            self.select = attrs["name"]
        elif tag == "option" and self.select and "selected" in attrs:
            self.fields.append((self.select, attrs.get("value", "")))
        elif tag == "textarea":
            self.textarea, self.text = attrs["name"], ""

    def handle_data(self, data):
        if self.textarea:
            self.text += data

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self.select = None
        elif tag == "textarea" and self.textarea:
            self.fields.append((self.textarea, self.text.removeprefix("\n")))
            self.textarea = None


def form_of(page: str, form_id: str) -> dict[str, list[str]]:
    parser = FormFields(form_id)
    parser.feed(page)
    fields: dict[str, list[str]] = {}
    for name, value in parser.fields:
        fields.setdefault(name, []).append(value)
    return fields


def start_attempt(visitor: Visitor, port: int, lang: str = "en") -> str:
    """Start an attempt at the demo quiz: the path of its first question."""
    quiz = f"/{lang}/quizzes/{QUIZ}/"
    status, location, _ = visitor.post(port, f"{quiz}start/", {}, page_path=quiz)
    assert status == 302, status
    return location


@pytest.mark.parametrize("shared", [False, True], ids=["each-its-own-cache", "redis"])
def test_an_edit_through_one_node_shows_at_once_through_the_other(cluster, shared):
    cluster.use(shared=shared)
    one, two = cluster.node_ports
    marker = f"Edited{time.monotonic_ns()}"
    (question_id,) = cluster.sql(
        "SELECT q.id FROM quizzes_question q JOIN quizzes_quiz z ON z.id = q.quiz_id "
        "WHERE z.slug = %s ORDER BY q.position LIMIT 1",
        QUIZ,
    )[0]
    learner = Visitor()
    question = start_attempt(learner, two)
    quiz_page = f"/en/quizzes/{QUIZ}/"
    # Node two keeps the quiz's content, its parts and the anonymous quiz page, in each worker.
    for _ in range(4):
        assert learner.get(two, question)[0] == 200
        status, _, page = Visitor().get(two, quiz_page)
        assert status == 200 and marker not in page

    editor = Visitor()
    status, _, _ = editor.post(
        one, "/admin/login/", {"username": EDITOR, "password": PASSWORD, "next": "/admin/"}
    )
    assert status == 302
    change = f"/admin/quizzes/question/{question_id}/change/"
    status, _, page = editor.get(one, change)
    assert status == 200, cluster.log(0)[-3000:]
    form = form_of(page, "question_form")
    form["prompt_en"] = [f"{marker} {form['prompt_en'][0]}"]
    status, _, page = editor.request(one, "POST", change, form)
    assert status == 302, re.findall(r'class="errorlist[^"]*">(.*?)</ul>', page, re.S)

    for _ in range(4):
        status, _, page = learner.get(two, question)
        assert status == 200 and marker in page
        status, _, page = Visitor().get(two, quiz_page)
        assert status == 200 and marker in page
    status, _, page = Visitor().get(cluster.port, quiz_page)
    assert marker in page


def test_sign_in_lockouts_and_rate_limits_count_across_nodes(cluster):
    cluster.use(shared=True)
    one, two = cluster.node_ports
    login = "/en/accounts/login/"
    guesser = Visitor("203.0.113.5")
    for port in (one, two, one):  # AXES_FAILURE_LIMIT=3: the third failure locks out.
        status, _, _ = guesser.post(port, login, {"username": EDITOR, "password": "wrong"})
        assert status in (200, 429)
    # The right password, from another address, on the other node: the username is locked.
    status, _, page = Visitor("203.0.113.6").post(
        two, login, {"username": EDITOR, "password": PASSWORD}
    )
    assert status == 429
    assert "try again" in page
    # And the guesser's address, for any username.
    assert guesser.post(two, login, {"username": "someone", "password": "x"})[0] == 429
    cluster.sql("DELETE FROM axes_accessattempt")

    signup = "/en/accounts/signup/"
    visitor = Visitor("203.0.113.7")
    # SIGNUP_LIMIT_PER_HOUR=3, counted in Redis whichever node takes the form.
    for port in (one, two, one):
        assert visitor.post(port, signup, {"username": ""})[0] == 200
    status, _, page = visitor.post(two, signup, {"username": ""})
    assert status == 429
    assert cluster.sql("SELECT count(*) FROM quizsite_ratelimithit WHERE key LIKE 'signup:%%'") == [
        (0,)
    ]


def test_sessions_and_the_learner_key_work_on_either_node(cluster):
    cluster.use(shared=True)
    one, two = cluster.node_ports
    learner = Visitor("203.0.113.8")
    question = start_attempt(learner, one, "fr")
    status, _, page = learner.get(two, question)
    assert status == 200
    status, location, _ = learner.post(
        two, question, {"choice": CHOICE.search(page).group(1)}, page_path=question
    )
    assert status == 302
    assert learner.get(one, location)[0] == 200  # The feedback, on the other node.
    assert Visitor().get(one, question)[0] in (403, 404)  # Not anyone's.

    editor = Visitor("203.0.113.9")
    status, _, _ = editor.post(
        two, "/en/accounts/login/", {"username": EDITOR, "password": PASSWORD}
    )
    assert status == 302
    assert editor.get(one, "/admin/")[0] == 200
    assert Visitor().get(one, "/admin/")[0] == 302


class LoggedBrowser(Browser):
    """A bench learner that notes each request's method, kind, status and, on a 502, page."""

    def __init__(self, port: int, recorder: Recorder, log: list) -> None:
        super().__init__("127.0.0.1", port, recorder)
        self.log = log

    def request(self, kind, method, path, form=None, accept=None):
        try:
            status, location, content = super().request(kind, method, path, form, accept)
        except Failure as failure:  # No answer at all: why, as the client saw it.
            self.log.append((method, kind, None, type(failure.__cause__).__name__))
            raise
        self.log.append((method, kind, status, content if status == 502 else ""))
        return status, location, content


def learners_while(cluster: Cluster, count: int, during) -> tuple[Recorder, list]:
    """`count` learners take the demo quiz through the proxy while `during()` runs."""
    recorder, log, stop = Recorder(), [], threading.Event()

    def learn(index: int) -> None:
        browser = LoggedBrowser(cluster.port, recorder, log)
        while not stop.is_set():
            try:
                take_quiz(
                    browser, "fr" if index % 2 else "en", QUIZ, time.monotonic() + 60, index % 2
                )
            except Failure:
                time.sleep(0.05)

    threads = [threading.Thread(target=learn, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    try:
        during()
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
    return recorder, log


def answers_in_database(cluster: Cluster, attempts) -> dict[str, int]:
    rows = cluster.sql(
        "SELECT a.public_id::text, count(*) FROM quizzes_answer n "
        "JOIN quizzes_attempt a ON a.id = n.attempt_id "
        "WHERE a.public_id::text = ANY(%s) GROUP BY 1",
        list(attempts),
    )
    return dict(rows)


def half_answers(cluster: Cluster) -> int:
    """Answers with neither a pick nor a response: a write cut in the middle."""
    return cluster.sql(
        "SELECT count(*) FROM quizzes_answer n WHERE n.response = '' AND NOT EXISTS "
        "(SELECT 1 FROM quizzes_answerchoice p WHERE p.answer_id = n.id)"
    )[0][0]


def test_redis_stopped_mid_run_costs_no_error_and_no_answer(cluster):
    cluster.use(shared=True)
    stopped = []

    def stop_redis() -> None:
        time.sleep(1.5)
        cluster.redis.stop()
        stopped.append(time.monotonic())
        time.sleep(2.5)

    recorder, log = learners_while(cluster, 8, stop_redis)
    statuses = {(method, status) for method, _kind, status, _page in log}
    assert statuses <= {("GET", 200), ("POST", 200), ("POST", 302)}, statuses
    assert recorder.steps > 20
    stored = answers_in_database(cluster, recorder.submitted)
    assert stored == dict(recorder.submitted)
    assert half_answers(cluster) == 0
    assert "Redis is unreachable" in cluster.log(0)

    # Back: the nodes keep their parts there again once their pause is over.
    cluster.redis.start()
    time.sleep(1.1)
    visitor = Visitor()
    for _ in range(4):
        assert visitor.get(cluster.port, f"/en/quizzes/{QUIZ}/")[0] == 200
    start_attempt(visitor, cluster.port)
    assert redis.Redis.from_url(cluster.redis.url).keys("quizsite:rate:*")


def test_a_node_killed_under_load_loses_no_acknowledged_answer_and_gets_no_more_requests(
    cluster,
):
    cluster.use(shared=True)
    dead = f"127.0.0.1:{cluster.node_ports[1]}"
    killed = []

    def kill_node_two() -> None:
        time.sleep(2)
        cluster.kill_node(1)
        killed.append(time.time())
        time.sleep(3)

    recorder, log = learners_while(cluster, 8, kill_node_two)
    # What node two had in hand when it died may fail, and only that: a POST gets the proxy's
    # page saying so, a GET whose answer was half sent is cut (nginx can't send it again), and
    # on a loaded machine a learner's 10 s may run out; nothing else fails.
    failed = [
        (method, kind, status, page)
        for method, kind, status, page in log
        if status not in (200, 302)
    ]
    assert all(
        (method == "POST" and status == 502) or status is None
        for method, _kind, status, _page in failed
    ), failed
    # At most what node two had taken (each learner has one request out at a time), and none
    # sent again: a learner's next request goes to node one.
    assert len(failed) <= 8
    for _method, _kind, status, page in log:
        if status == 502:
            assert "The site did not answer" in page or "Le site n’a pas répondu" in page
    assert recorder.steps > 20

    stored = answers_in_database(cluster, recorder.submitted)
    lost = {a: n for a, n in recorder.submitted.items() if stored.get(a, 0) < n}
    assert lost == {}
    assert sum(stored.values()) - sum(recorder.submitted.values()) <= len(failed)
    assert half_answers(cluster) == 0

    # The proxy sent node two nothing from a second after it died.
    sent = []
    for line in cluster.access_log.read_text().splitlines():
        ended = float(re.search(r" (\d+\.\d+) upstream=", line).group(1))
        if dead in line:
            sent.append(ended)
    assert any(at < killed[0] for at in sent)  # It had its share before.
    assert [at for at in sent if at > killed[0] + 1] == []
