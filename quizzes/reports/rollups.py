"""Report rollups: counts of attempts and answers by day, kept by PostgreSQL triggers.

A quiz's report at a million attempts can't scan them (seconds per query); it reads these
two tables instead and gets the same figures:

- `report_attempt_rollup`: attempts counted by (quiz, day started, language, first attempt,
  kind, anonymous, answered at least once, completed, score, out of);
- `report_answer_rollup`: the answers of completed attempts counted by (quiz, day, language,
  first attempt, kind, question, choice, credit, the attempt's score, correct, and the
  response of a wrong answer).

Each row is kept twice: for its day, and for all time (`day` NULL). A report without dates
reads the all-time rows, a few thousand for a quiz of a million attempts; one with dates
reads the days of its range (as many rows as those days' distinct keys). The day is the
attempt's start date in `settings.TIME_ZONE`, the zone the report's date filters are read
in, so a date range is whole days of the rollup. Statement-level triggers on the attempts
and the answers keep both in the same transaction as the change (insert, update, delete:
answering, completing, a regrade, a claim at sign-in, a bulk submission of overdue
attempts), by adding the new rows' counts and taking away the old ones'; a change that moves
no count (a deadline, the questions' order) nets to nothing and writes nothing. Each delta
is added in key order, so two transactions take the rows' locks in the same order.

PostgreSQL only: on SQLite (development, tests) the reports scan the attempts, as they
always did. A report that reads a class's learners (`klass`, `taught_by`) scans them too:
its attempts are those of a class, not of the whole site. After a change of
`settings.TIME_ZONE`, run `rebuild()` (`manage.py shell -c "from django.db import
connection; from quizzes.reports.rollups import rebuild; rebuild(connection)"`); it takes
a few minutes at a million attempts, during which answers wait.
"""

from django.conf import settings
from django.db import transaction

ATTEMPT_KEY = (
    "quiz_id, day, language, is_first, kind, anonymous, answered, completed, score, max_score"
)
ANSWER_KEY = (
    "quiz_id, day, language, is_first, kind, question_id, choice_id, credit, score, "
    "is_correct, md5(response), variant, picks"
)
ANSWER_COLUMNS = (
    "quiz_id, day, language, is_first, kind, question_id, choice_id, credit, score, "
    "is_correct, response, variant, picks"
)


def _picks(answer: str) -> str:
    """An answer's picks as the rollup keeps them: those of an answer without `choice` (of
    several picks), in order; none for the others, whose pick is their `choice`."""
    return (
        f"CASE WHEN {answer}.choice_id IS NULL THEN ARRAY(SELECT c.choice_id FROM "
        f"quizzes_answerchoice c WHERE c.answer_id = {answer}.id ORDER BY 1) "
        f"ELSE '{{}}'::bigint[] END"
    )


TABLES = f"""
CREATE TABLE report_attempt_rollup (
    quiz_id bigint NOT NULL,
    day date,  -- NULL: all time.
    language varchar(10) NOT NULL,
    is_first boolean NOT NULL,
    kind varchar(10) NOT NULL,
    anonymous boolean NOT NULL,
    answered boolean NOT NULL,
    completed boolean NOT NULL,
    score numeric(12, 5),
    max_score integer,
    n bigint NOT NULL
);
CREATE UNIQUE INDEX report_attempt_rollup_key ON report_attempt_rollup
    ({ATTEMPT_KEY}) NULLS NOT DISTINCT;
CREATE TABLE report_answer_rollup (
    quiz_id bigint NOT NULL,
    day date,  -- NULL: all time.
    language varchar(10) NOT NULL,
    is_first boolean NOT NULL,
    kind varchar(10) NOT NULL,
    question_id bigint NOT NULL,
    choice_id bigint,
    credit numeric(6, 5) NOT NULL,
    score numeric(12, 5),
    is_correct boolean NOT NULL,
    response varchar(2000) NOT NULL,
    variant varchar(500) NOT NULL,
    picks bigint[] NOT NULL,
    n bigint NOT NULL
);
CREATE UNIQUE INDEX report_answer_rollup_key ON report_answer_rollup
    ({ANSWER_KEY}) NULLS NOT DISTINCT;
"""


def _attempts_added(delta: str) -> str:
    """Two statements that count signed attempt rows (`delta`, a query of attempts' columns
    and `sign`: +1 new, -1 old) into the rollups: the attempts, and the answers of the
    completed ones as they are now."""
    return f"""
    WITH d AS ({delta})
    INSERT INTO report_attempt_rollup AS r ({ATTEMPT_KEY}, n)
    SELECT d.quiz_id, lvl.day, d.language, d.is_first, d.kind,
           d.user_id IS NULL,
           EXISTS (SELECT 1 FROM quizzes_answer a WHERE a.attempt_id = d.id),
           d.completed_at IS NOT NULL, d.score, d.max_score, sum(d.sign)
    FROM d, LATERAL (VALUES (report_day(d.started_at)), (NULL)) AS lvl (day)
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 HAVING sum(d.sign) <> 0
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    ON CONFLICT ({ATTEMPT_KEY}) DO UPDATE SET n = r.n + excluded.n;
    WITH d AS ({delta})
    INSERT INTO report_answer_rollup AS r ({ANSWER_COLUMNS}, n)
    SELECT d.quiz_id, lvl.day, d.language, d.is_first, d.kind, a.question_id,
           a.choice_id, a.credit, d.score, a.is_correct, a.response, a.variant,
           {_picks("a")}, sum(d.sign)
    FROM d JOIN quizzes_answer a ON a.attempt_id = d.id,
         LATERAL (VALUES (report_day(d.started_at)), (NULL)) AS lvl (day)
    WHERE d.completed_at IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 HAVING sum(d.sign) <> 0
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, md5(a.response), 12, 13
    ON CONFLICT ({ANSWER_KEY}) DO UPDATE SET n = r.n + excluded.n;
"""


# The attempts whose counted columns an UPDATE changed, before (-1) and after (+1).
_CHANGED = """
    SELECT n.*, 1 AS sign FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE (n.quiz_id, n.started_at, n.language, n.is_first, n.kind, n.user_id IS NULL,
           n.completed_at IS NULL, n.score, n.max_score)
          IS DISTINCT FROM
          (o.quiz_id, o.started_at, o.language, o.is_first, o.kind, o.user_id IS NULL,
           o.completed_at IS NULL, o.score, o.max_score)
    UNION ALL
    SELECT o.*, -1 AS sign FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE (n.quiz_id, n.started_at, n.language, n.is_first, n.kind, n.user_id IS NULL,
           n.completed_at IS NULL, n.score, n.max_score)
          IS DISTINCT FROM
          (o.quiz_id, o.started_at, o.language, o.is_first, o.kind, o.user_id IS NULL,
           o.completed_at IS NULL, o.score, o.max_score)
"""


def _answers_added(delta: str, inserted: bool, picks: str | None = None) -> str:
    """Signed answer rows (`delta`) counted into the answers' rollup with their attempt as
    it is now (completed ones only); and, for an INSERT (`inserted`) or a DELETE, the
    attempts that it made answered (their first answers) or unanswered (their last ones
    gone) moved from one count to the other."""
    now = "touched.k" if inserted else "0"
    picks = picks or _picks("d")
    return f"""
    WITH d AS ({delta})
    INSERT INTO report_answer_rollup AS r ({ANSWER_COLUMNS}, n)
    SELECT t.quiz_id, lvl.day, t.language, t.is_first, t.kind, d.question_id,
           d.choice_id, d.credit, t.score, d.is_correct, d.response, d.variant, {picks},
           sum(d.sign)
    FROM d JOIN quizzes_attempt t ON t.id = d.attempt_id,
         LATERAL (VALUES (report_day(t.started_at)), (NULL)) AS lvl (day)
    WHERE t.completed_at IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 HAVING sum(d.sign) <> 0
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, md5(d.response), 12, 13
    ON CONFLICT ({ANSWER_KEY}) DO UPDATE SET n = r.n + excluded.n;
    WITH touched AS (SELECT d.attempt_id, count(*) AS k FROM ({delta}) d GROUP BY 1),
    moved AS (
        SELECT t.* FROM quizzes_attempt t JOIN touched ON touched.attempt_id = t.id
        WHERE (SELECT count(*) FROM quizzes_answer a WHERE a.attempt_id = t.id) = {now}
    )
    INSERT INTO report_attempt_rollup AS r ({ATTEMPT_KEY}, n)
    SELECT d.quiz_id, lvl.day, d.language, d.is_first, d.kind,
           d.user_id IS NULL, s.answered, d.completed_at IS NOT NULL, d.score, d.max_score,
           sum(CASE WHEN s.answered = {str(inserted).lower()} THEN 1 ELSE -1 END)
    FROM moved d, (VALUES (true), (false)) AS s (answered),
         LATERAL (VALUES (report_day(d.started_at)), (NULL)) AS lvl (day)
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    ON CONFLICT ({ATTEMPT_KEY}) DO UPDATE SET n = r.n + excluded.n;
"""


def _picks_changed(*, added: bool, taken: bool) -> str:
    """Picks added (`added`: the statement's new rows) or taken away (`taken`: its old rows)
    of answers without `choice`, of completed attempts: each answer counted again, with its
    picks before (-1: those there are now less the new ones, plus the old ones) and after
    (+1). Set-wise: each answer's picks aggregated once, before and after."""
    new = "SELECT id, answer_id, choice_id FROM new_rows" if added else _NONE
    old = "SELECT id, answer_id, choice_id FROM old_rows" if taken else _NONE
    delta = f"""
        WITH added AS ({new}), taken AS ({old}),
        touched AS (SELECT answer_id FROM added UNION SELECT answer_id FROM taken),
        current AS (
            SELECT c.id, c.answer_id, c.choice_id FROM quizzes_answerchoice c
            WHERE c.answer_id IN (SELECT answer_id FROM touched)
        ),
        later AS (
            SELECT answer_id, array_agg(choice_id ORDER BY choice_id) AS picks
            FROM current GROUP BY answer_id
        ),
        earlier AS (
            SELECT answer_id, array_agg(choice_id ORDER BY choice_id) AS picks
            FROM (
                SELECT answer_id, choice_id FROM current
                WHERE NOT EXISTS (SELECT 1 FROM added WHERE added.id = current.id)
                UNION ALL SELECT answer_id, choice_id FROM taken
            ) p GROUP BY answer_id
        )
        SELECT a.*, coalesce(later.picks, '{{}}') AS picks, 1 AS sign
        FROM quizzes_answer a JOIN touched ON touched.answer_id = a.id
        LEFT JOIN later ON later.answer_id = a.id WHERE a.choice_id IS NULL
        UNION ALL
        SELECT a.*, coalesce(earlier.picks, '{{}}') AS picks, -1 AS sign
        FROM quizzes_answer a JOIN touched ON touched.answer_id = a.id
        LEFT JOIN earlier ON earlier.answer_id = a.id WHERE a.choice_id IS NULL"""
    return _answers_added(delta, inserted=True, picks="d.picks").split(";")[0] + ";"


_NONE = (
    "SELECT NULL::bigint AS id, NULL::bigint AS answer_id, NULL::bigint AS choice_id WHERE false"
)


def _function(name: str, body: str) -> str:
    return f"""
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
{body}
    RETURN NULL;
END $$;
"""


def _functions(time_zone: str) -> str:
    """The day function, read in `time_zone`, and a function for each trigger."""
    zone = time_zone.replace("'", "''")
    new, old = "SELECT n.*, 1 AS sign FROM new_rows n", "SELECT o.*, -1 AS sign FROM old_rows o"
    answers_updated = f"{new} UNION ALL {old}"
    return "\n".join(
        [
            f"""
CREATE OR REPLACE FUNCTION report_day(at timestamptz) RETURNS date
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT (at AT TIME ZONE '{zone}')::date $$;
""",
            _function("report_attempts_inserted", _attempts_added(new)),
            _function("report_attempts_updated", _attempts_added(_CHANGED)),
            _function("report_attempts_deleted", _attempts_added(old)),
            _function("report_answers_inserted", _answers_added(new, inserted=True)),
            _function(
                "report_answers_updated",
                _answers_added(answers_updated, inserted=True).split(";")[0] + ";",
            ),
            _function("report_answers_deleted", _answers_added(old, inserted=False)),
            _function("report_picks_inserted", _picks_changed(added=True, taken=False)),
            _function("report_picks_updated", _picks_changed(added=True, taken=True)),
            _function("report_picks_deleted", _picks_changed(added=False, taken=True)),
        ]
    )


_EVENTS = {
    "inserted": ("INSERT", "NEW TABLE AS new_rows"),
    "updated": ("UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
    "deleted": ("DELETE", "OLD TABLE AS old_rows"),
}
_TABLES = {
    "attempts": "quizzes_attempt",
    "answers": "quizzes_answer",
    "picks": "quizzes_answerchoice",
}
TRIGGERS = "".join(
    f"CREATE TRIGGER report_{rows}_{event} AFTER {op} ON {table} REFERENCING {referencing} "
    f"FOR EACH STATEMENT EXECUTE FUNCTION report_{rows}_{event}();\n"
    for rows, table in _TABLES.items()
    for event, (op, referencing) in _EVENTS.items()
)
DROP = (
    "DROP TABLE IF EXISTS report_attempt_rollup, report_answer_rollup;\n"
    + "".join(
        f"DROP TRIGGER IF EXISTS report_{rows}_{event} ON {table};\n"
        f"DROP FUNCTION IF EXISTS report_{rows}_{event}();\n"
        for rows, table in _TABLES.items()
        for event in _EVENTS
    )
    + "DROP FUNCTION IF EXISTS report_day(timestamptz);\n"
)


def rebuild(connection, time_zone: str | None = None) -> None:
    """(Re)create the rollups, their functions and triggers, and count every attempt and
    answer into them, in `time_zone` (default `settings.TIME_ZONE`), in one transaction that
    holds off the writers of attempts, answers and picks meanwhile. Nothing on SQLite."""
    if connection.vendor != "postgresql":
        return
    # One transaction, the writers held off: no change between the count and the triggers.
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        cursor.execute(
            "LOCK TABLE quizzes_attempt, quizzes_answer, quizzes_answerchoice IN SHARE MODE"
        )
        cursor.execute(DROP)
        cursor.execute(TABLES)
        cursor.execute(_functions(time_zone or settings.TIME_ZONE))
        cursor.execute(_attempts_added("SELECT t.*, 1 AS sign FROM quizzes_attempt t"))
        cursor.execute(TRIGGERS)


def drop(connection) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(DROP)


def folded(connection) -> list[tuple]:
    """Every count the rollups hold, by key, without the zeros: what a rebuild gives."""
    with connection.cursor() as cursor:
        rows = []
        for table, key in (
            ("report_attempt_rollup", ATTEMPT_KEY),
            ("report_answer_rollup", ANSWER_COLUMNS),
        ):
            cursor.execute(
                f"SELECT '{table}', {key}, sum(n) FROM {table} GROUP BY {key} "
                f"HAVING sum(n) <> 0 ORDER BY {key}"
            )
            rows += cursor.fetchall()
        return rows
