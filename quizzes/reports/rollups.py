"""Report rollups: counts of attempts and answers by day, kept by PostgreSQL triggers.

A quiz's report at a million attempts can't scan them (seconds per query); it reads these
tables instead and gets the same figures:

- `report_attempt_rollup`: attempts counted by (quiz, day started, language, first attempt,
  kind, anonymous, answered at least once, completed, score, out of);
- `report_answer_rollup`: the answers of completed attempts counted by (quiz, day, language,
  first attempt, kind, question, choice, credit, the attempt's score, correct, and the
  response of a wrong answer);
- `report_learner_rollup`: each signed-in learner's completed attempts at a quiz (how many,
  the best and the last score, the last date), for all their languages (`language` '') and
  for each, without and with practice attempts: the learners list of all attempts;
  `report_learner_count` counts those rows (the list's length).

The counts are kept twice: for their day, and for all time (`day` NULL). A report without
dates reads the all-time rows, a few thousand for a quiz of a million attempts; one with
dates reads the days of its range. The day is the attempt's start date in
`settings.TIME_ZONE`, the zone the report's date filters are read in, so a date range is
whole days of the rollup.

Nothing a learner writes is shared with another learner's transaction. Statement-level
triggers on the attempts, answers and picks append signed counts (+1 new, -1 old) to
`report_attempt_delta`, `report_answer_delta` and `report_learner_count_delta`, plain
INSERTs without a key, so that two
learners finishing at once never wait on each other's row (the rollups' all-time rows are the
same few rows for everyone: updated in place, they made concurrent learners take turns,
bench/REPORTS.md). `compact()` folds the deltas into the rollups, in one statement a table
(`DELETE … RETURNING` into `INSERT … ON CONFLICT DO UPDATE`); the task worker runs it at
most once a minute when attempts finish (`compact_soon`), and a report runs it on the
primary before reading. A report reads rollup and deltas together (`ATTEMPT_COUNTS`,
`ANSWER_COUNTS`), so it is exact whether or not they were folded, on the replica too, which
can't fold them. A learner's row of `report_learner_rollup` is counted again from their
attempts at the quiz by the attempts' triggers, under a lock of that learner's at that quiz
(an advisory lock): only their own transactions wait on it.

PostgreSQL only: on SQLite (development, tests) the reports scan the attempts, as they
always did. A report that reads a class's learners (`klass`, `taught_by`) scans them too:
its attempts are those of a class, not of the whole site. After a change of
`settings.TIME_ZONE`, run `rebuild()` (`manage.py shell -c "from django.db import
connection; from quizzes.reports.rollups import rebuild; rebuild(connection)"`); it takes
a few minutes at a million attempts, during which answers wait. Migration 0027 builds the
rollups from this module as it is when the migration runs: a change to their tables or
triggers ships with a migration of its own that calls `rebuild()`.
"""

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction

# The attempt's columns both rollups begin with: a report's WHERE on the rollups' rows
# (reports.selectors._rollup) reads them, whichever rollup it is put to.
DIMENSIONS = "quiz_id, day, language, is_first, kind"
ATTEMPT_KEY = f"{DIMENSIONS}, anonymous, answered, completed, score, max_score"
ANSWER_KEY = (
    f"{DIMENSIONS}, question_id, choice_id, credit, score, is_correct, md5(response), variant, "
    "picks"
)
ANSWER_COLUMNS = (
    f"{DIMENSIONS}, question_id, choice_id, credit, score, is_correct, response, variant, picks"
)
# What a report reads: the rollup and the deltas not folded into it yet, to sum by key.
ATTEMPT_COUNTS = (
    f"(SELECT {ATTEMPT_KEY}, n FROM report_attempt_rollup UNION ALL "
    f"SELECT {ATTEMPT_KEY}, n FROM report_attempt_delta)"
)
ANSWER_COUNTS = (
    f"(SELECT {ANSWER_COLUMNS}, n FROM report_answer_rollup UNION ALL "
    f"SELECT {ANSWER_COLUMNS}, n FROM report_answer_delta)"
)
# The learners of a quiz (their rows of report_learner_rollup) counted, and what a report
# reads of those counts.
LEARNER_KEY = "quiz_id, practice, language"
LEARNER_COUNTS = (
    f"(SELECT {LEARNER_KEY}, n FROM report_learner_count UNION ALL "
    f"SELECT {LEARNER_KEY}, n FROM report_learner_count_delta)"
)
# The compaction's lock (pg_try_advisory_xact_lock): one at a time, the others go on without.
COMPACTION_LOCK = 0x5155495A  # "QUIZ"
# A learner's lock at a quiz, while their row of the learners' rollup is counted again.
_LEARNER_LOCK = "hashtextextended('report_learner ' || quiz_id || ' ' || user_id, 0)"


def _picks(answer: str) -> str:
    """An answer's picks as the rollup keeps them: those of an answer without `choice` (of
    several picks), in order; none for the others, whose pick is their `choice`."""
    return (
        f"CASE WHEN {answer}.choice_id IS NULL THEN ARRAY(SELECT c.choice_id FROM "
        f"quizzes_answerchoice c WHERE c.answer_id = {answer}.id ORDER BY 1) "
        f"ELSE '{{}}'::bigint[] END"
    )


_DIMENSION_COLUMNS = """
    quiz_id bigint NOT NULL,
    day date,  -- NULL: all time.
    language varchar(10) NOT NULL,
    is_first boolean NOT NULL,
    kind varchar(10) NOT NULL,"""
_ATTEMPT_COLUMNS = f"""{_DIMENSION_COLUMNS}
    anonymous boolean NOT NULL,
    answered boolean NOT NULL,
    completed boolean NOT NULL,
    score numeric(12, 5),
    max_score integer,
    n bigint NOT NULL"""
_ANSWER_COLUMNS = f"""{_DIMENSION_COLUMNS}
    question_id bigint NOT NULL,
    choice_id bigint,
    credit numeric(6, 5) NOT NULL,
    score numeric(12, 5),
    is_correct boolean NOT NULL,
    response varchar(2000) NOT NULL,
    variant varchar(500) NOT NULL,
    picks bigint[] NOT NULL,
    n bigint NOT NULL"""
TABLES = f"""
CREATE TABLE report_attempt_rollup ({_ATTEMPT_COLUMNS});
CREATE UNIQUE INDEX report_attempt_rollup_key ON report_attempt_rollup
    ({ATTEMPT_KEY}) NULLS NOT DISTINCT;
CREATE TABLE report_answer_rollup ({_ANSWER_COLUMNS});
CREATE UNIQUE INDEX report_answer_rollup_key ON report_answer_rollup
    ({ANSWER_KEY}) NULLS NOT DISTINCT;
CREATE TABLE report_attempt_delta ({_ATTEMPT_COLUMNS});
CREATE INDEX report_attempt_delta_quiz ON report_attempt_delta (quiz_id);
CREATE TABLE report_answer_delta ({_ANSWER_COLUMNS});
CREATE INDEX report_answer_delta_quiz ON report_answer_delta (quiz_id);
CREATE TABLE report_learner_rollup (
    quiz_id bigint NOT NULL,
    user_id integer NOT NULL,
    language varchar(10) NOT NULL,  -- '': all languages.
    practice boolean NOT NULL,  -- Quiz attempts only (false), or practice ones too (true).
    attempts bigint NOT NULL,
    best numeric,
    last_score numeric,
    last_date timestamptz NOT NULL,
    -- The learner first: a learner's rows are found (and counted again) by their quiz and
    -- them; the learners list reads a quiz's rows by report_learner_rollup_last.
    PRIMARY KEY (quiz_id, user_id, practice, language)
);
CREATE INDEX report_learner_rollup_last ON report_learner_rollup
    (quiz_id, practice, language, last_date DESC NULLS LAST, user_id);
CREATE TABLE report_learner_count (
    quiz_id bigint NOT NULL,
    practice boolean NOT NULL,
    language varchar(10) NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (quiz_id, practice, language)
);
CREATE TABLE report_learner_count_delta (
    quiz_id bigint NOT NULL,
    practice boolean NOT NULL,
    language varchar(10) NOT NULL,
    n bigint NOT NULL
);
CREATE INDEX report_learner_count_delta_quiz ON report_learner_count_delta (quiz_id);
"""


# The statements reach the tables from the statement's rows through LATERAL subqueries
# fenced by OFFSET 0, and their functions run with sequential scans off (`_function`): an
# index lookup a row, whatever the planner thinks of the tables' sizes. Statistics that say a
# table is empty while it has rows (an ANALYZE by another session while a bulk load had not
# committed, or after a TRUNCATE) made the planner join the other way round (44 s for 1,179
# picks in a test), or scan the attempts once for each answer.


def _attempts_added(delta: str) -> str:
    """Two statements that count signed attempt rows (`delta`, a query of attempts' columns
    and `sign`: +1 new, -1 old) into the deltas: the attempts, and the answers of the
    completed ones as they are now."""
    return f"""
    WITH d AS ({delta})
    INSERT INTO report_attempt_delta ({ATTEMPT_KEY}, n)
    SELECT d.quiz_id, lvl.day, d.language, d.is_first, d.kind,
           d.user_id IS NULL,
           EXISTS (SELECT 1 FROM quizzes_answer a WHERE a.attempt_id = d.id),
           d.completed_at IS NOT NULL, d.score, d.max_score, sum(d.sign)
    FROM d, LATERAL (VALUES (report_day(d.started_at)), (NULL)) AS lvl (day)
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 HAVING sum(d.sign) <> 0;
    WITH d AS ({delta})
    INSERT INTO report_answer_delta ({ANSWER_COLUMNS}, n)
    SELECT d.quiz_id, lvl.day, d.language, d.is_first, d.kind, a.question_id,
           a.choice_id, a.credit, d.score, a.is_correct, a.response, a.variant,
           {_picks("a")}, sum(d.sign)
    FROM d, LATERAL (SELECT * FROM quizzes_answer a WHERE a.attempt_id = d.id OFFSET 0) a,
         LATERAL (VALUES (report_day(d.started_at)), (NULL)) AS lvl (day)
    WHERE d.completed_at IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 HAVING sum(d.sign) <> 0;
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


# What a learner's row of the learners' rollup is made of: their completed quiz, practice and
# single-question attempts at the quiz, by language ('' all) and without or with practice.
def _learners_counted(learners: str) -> str:
    """A query of the learners' rollup rows of the (quiz_id, user_id) pairs `learners`."""
    percent = "t.score * 100.0 / nullif(t.max_score, 0)"
    return f"""
    SELECT t.quiz_id, t.user_id, lang.language, lvl.practice, count(*),
           max({percent}),
           (array_agg({percent} ORDER BY t.completed_at DESC, t.id DESC))[1],
           max(t.completed_at)
    FROM ({learners}) l,
         LATERAL (
             SELECT * FROM quizzes_attempt t
             WHERE t.quiz_id = l.quiz_id AND t.user_id = l.user_id OFFSET 0
         ) t,
         LATERAL (VALUES (''), (t.language)) AS lang (language),
         LATERAL (VALUES (false), (true)) AS lvl (practice)
    WHERE t.completed_at IS NOT NULL
      AND (t.kind = 'quiz' OR (t.kind IN ('practice', 'question') AND lvl.practice))
    GROUP BY 1, 2, 3, 4"""


def _learners_recounted(changed: str) -> str:
    """Statements that count again the learners' rows of the (quiz_id, user_id) pairs of
    `changed`, each under the learner's lock at the quiz, taken in the same order by every
    transaction: a transaction that changes a learner's attempts waits for another that did,
    then counts with its changes (each statement of a trigger sees what committed before it,
    the lock's statement first)."""
    pairs = f"SELECT DISTINCT quiz_id, user_id FROM ({changed}) c WHERE user_id IS NOT NULL"
    return f"""
    PERFORM pg_advisory_xact_lock(k) FROM (
        SELECT DISTINCT {_LEARNER_LOCK} AS k FROM ({pairs}) p ORDER BY 1
    ) locks;
    WITH gone AS (
        DELETE FROM report_learner_rollup r USING ({pairs}) p
        WHERE r.quiz_id = p.quiz_id AND r.user_id = p.user_id
        RETURNING r.quiz_id, r.practice, r.language
    )
    INSERT INTO report_learner_count_delta ({LEARNER_KEY}, n)
    SELECT {LEARNER_KEY}, -count(*) FROM gone GROUP BY {LEARNER_KEY};
    WITH made AS (
        INSERT INTO report_learner_rollup {_learners_counted(pairs)}
        RETURNING quiz_id, practice, language
    )
    INSERT INTO report_learner_count_delta ({LEARNER_KEY}, n)
    SELECT {LEARNER_KEY}, count(*) FROM made GROUP BY {LEARNER_KEY};
"""


# The attempts whose learner's row an INSERT, UPDATE or DELETE changes, old and new.
_LEARNERS_INSERTED = "SELECT quiz_id, user_id FROM new_rows WHERE completed_at IS NOT NULL"
_LEARNERS_DELETED = "SELECT quiz_id, user_id FROM old_rows WHERE completed_at IS NOT NULL"
_LEARNERS_UPDATED = """
    SELECT x.quiz_id, x.user_id
    FROM new_rows n JOIN old_rows o ON o.id = n.id,
         LATERAL (VALUES (n.quiz_id, n.user_id), (o.quiz_id, o.user_id)) AS x (quiz_id, user_id)
    WHERE (n.completed_at IS NOT NULL OR o.completed_at IS NOT NULL)
      AND (n.quiz_id, n.user_id, n.language, n.kind, n.completed_at, n.score, n.max_score)
          IS DISTINCT FROM
          (o.quiz_id, o.user_id, o.language, o.kind, o.completed_at, o.score, o.max_score)
"""


def _answers_added(delta: str, inserted: bool, picks: str | None = None) -> str:
    """Signed answer rows (`delta`) counted into the answers' deltas with their attempt as
    it is now (completed ones only); and, for an INSERT (`inserted`) or a DELETE, the
    attempts that it made answered (their first answers) or unanswered (their last ones
    gone) moved from one count to the other."""
    now = "touched.k" if inserted else "0"
    picks = picks or _picks("d")
    return f"""
    WITH d AS ({delta})
    INSERT INTO report_answer_delta ({ANSWER_COLUMNS}, n)
    SELECT t.quiz_id, lvl.day, t.language, t.is_first, t.kind, d.question_id,
           d.choice_id, d.credit, t.score, d.is_correct, d.response, d.variant, {picks},
           sum(d.sign)
    FROM d, LATERAL (SELECT * FROM quizzes_attempt t WHERE t.id = d.attempt_id OFFSET 0) t,
         LATERAL (VALUES (report_day(t.started_at)), (NULL)) AS lvl (day)
    WHERE t.completed_at IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 HAVING sum(d.sign) <> 0;
    WITH touched AS (SELECT d.attempt_id, count(*) AS k FROM ({delta}) d GROUP BY 1),
    moved AS (
        SELECT t.* FROM touched,
             LATERAL (SELECT * FROM quizzes_attempt t WHERE t.id = touched.attempt_id OFFSET 0) t
        WHERE (SELECT count(*) FROM quizzes_answer a WHERE a.attempt_id = t.id) = {now}
    )
    INSERT INTO report_attempt_delta ({ATTEMPT_KEY}, n)
    SELECT d.quiz_id, lvl.day, d.language, d.is_first, d.kind,
           d.user_id IS NULL, s.answered, d.completed_at IS NOT NULL, d.score, d.max_score,
           sum(CASE WHEN s.answered = {str(inserted).lower()} THEN 1 ELSE -1 END)
    FROM moved d, (VALUES (true), (false)) AS s (answered),
         LATERAL (VALUES (report_day(d.started_at)), (NULL)) AS lvl (day)
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10;
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
            SELECT c.id, c.answer_id, c.choice_id FROM touched, LATERAL (
                SELECT * FROM quizzes_answerchoice c WHERE c.answer_id = touched.answer_id OFFSET 0
            ) c
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
        FROM touched, LATERAL (
            SELECT * FROM quizzes_answer a WHERE a.id = touched.answer_id OFFSET 0
        ) a
        LEFT JOIN later ON later.answer_id = a.id WHERE a.choice_id IS NULL
        UNION ALL
        SELECT a.*, coalesce(earlier.picks, '{{}}') AS picks, -1 AS sign
        FROM touched, LATERAL (
            SELECT * FROM quizzes_answer a WHERE a.id = touched.answer_id OFFSET 0
        ) a
        LEFT JOIN earlier ON earlier.answer_id = a.id WHERE a.choice_id IS NULL"""
    return _answers_added(delta, inserted=True, picks="d.picks").split(";")[0] + ";"


_NONE = (
    "SELECT NULL::bigint AS id, NULL::bigint AS answer_id, NULL::bigint AS choice_id WHERE false"
)


def _function(name: str, body: str) -> str:
    """A trigger's function. Every statement of it reads rows by key, a few for each row the
    trigger's statement changed: a sequential scan is never the plan to take (the setting
    makes it the last resort), even when the statistics say that a table is empty."""
    return f"""
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql
SET enable_seqscan = off AS $$
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
            _function(
                "report_attempts_inserted",
                _attempts_added(new) + _learners_recounted(_LEARNERS_INSERTED),
            ),
            _function(
                "report_attempts_updated",
                _attempts_added(_CHANGED) + _learners_recounted(_LEARNERS_UPDATED),
            ),
            _function(
                "report_attempts_deleted",
                _attempts_added(old) + _learners_recounted(_LEARNERS_DELETED),
            ),
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
    "DROP TABLE IF EXISTS report_attempt_rollup, report_answer_rollup, report_attempt_delta, "
    "report_answer_delta, report_learner_rollup, report_learner_count, "
    "report_learner_count_delta;\n"
    + "".join(
        f"DROP TRIGGER IF EXISTS report_{rows}_{event} ON {table};\n"
        f"DROP FUNCTION IF EXISTS report_{rows}_{event}();\n"
        for rows, table in _TABLES.items()
        for event in _EVENTS
    )
    + "DROP FUNCTION IF EXISTS report_day(timestamptz);\n"
)


def _folding(delta: str, rollup: str, key: str, columns: str, quiz: bool) -> str:
    """The deltas (of the quiz, `quiz`) taken away and added to the rollup, by key; when
    another compaction runs (`go` is false), nothing."""
    of_quiz = "quiz_id = %(quiz)s AND " if quiz else ""
    return f"""
    moved_{delta} AS (
        DELETE FROM {delta} WHERE {of_quiz}(SELECT ok FROM go) RETURNING {columns}, n
    ),
    folded_{delta} AS (
        INSERT INTO {rollup} AS r ({columns}, n)
        SELECT {columns}, sum(n) FROM moved_{delta} GROUP BY {columns} HAVING sum(n) <> 0
        ON CONFLICT ({key}) DO UPDATE SET n = r.n + excluded.n
        RETURNING 1
    )"""


def _compaction(quiz: bool) -> str:
    return f"""
    WITH go AS (SELECT pg_try_advisory_xact_lock({COMPACTION_LOCK}) AS ok),
    {_folding("report_attempt_delta", "report_attempt_rollup", ATTEMPT_KEY, ATTEMPT_KEY, quiz)},
    {_folding("report_answer_delta", "report_answer_rollup", ANSWER_KEY, ANSWER_COLUMNS, quiz)},
    {_folding("report_learner_count_delta", "report_learner_count", LEARNER_KEY, LEARNER_KEY, quiz)}
    SELECT (SELECT count(*) FROM moved_report_attempt_delta)
         + (SELECT count(*) FROM moved_report_answer_delta)
         + (SELECT count(*) FROM moved_report_learner_count_delta)"""


def compact(quiz_id: int | None = None, *, using: str = DEFAULT_DB_ALIAS) -> int | None:
    """Fold the deltas (of the quiz `quiz_id`, or all of them) into the rollups, on the
    primary (`using`): one statement, its own transaction unless the caller is in one. The
    deltas folded (how many rows), 0 when another compaction is running (the rows it hasn't
    taken wait for the next one), None without rollups (SQLite, or `REPORT_ROLLUPS` off).
    The readers sum rollup and deltas, so that they read the same figures before and after."""
    connection = connections[using]
    if connection.vendor != "postgresql" or not settings.REPORT_ROLLUPS:
        return None
    with connection.cursor() as cursor:
        cursor.execute(_compaction(quiz_id is not None), {"quiz": quiz_id})
        return cursor.fetchone()[0]


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
        cursor.execute(f"SELECT pg_advisory_xact_lock({COMPACTION_LOCK})")
        cursor.execute(DROP)
        cursor.execute(TABLES)
        cursor.execute(_functions(time_zone or settings.TIME_ZONE))
        cursor.execute(_attempts_added("SELECT t.*, 1 AS sign FROM quizzes_attempt t"))
        cursor.execute(_compaction(quiz=False))
        cursor.execute(
            "INSERT INTO report_learner_rollup "
            + _learners_counted(
                "SELECT DISTINCT quiz_id, user_id FROM quizzes_attempt "
                "WHERE user_id IS NOT NULL AND completed_at IS NOT NULL"
            )
        )
        cursor.execute(
            f"INSERT INTO report_learner_count ({LEARNER_KEY}, n) SELECT {LEARNER_KEY}, "
            f"count(*) FROM report_learner_rollup GROUP BY {LEARNER_KEY}"
        )
        cursor.execute(TRIGGERS)


def drop(connection) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(DROP)


def folded(connection) -> list[tuple]:
    """Every count the rollups and their deltas hold, by key, without the zeros, and the
    learners' rows: what a rebuild gives."""
    with connection.cursor() as cursor:
        rows = []
        for counts, key in (
            (ATTEMPT_COUNTS, ATTEMPT_KEY),
            (ANSWER_COUNTS, ANSWER_COLUMNS),
            (LEARNER_COUNTS, LEARNER_KEY),
        ):
            cursor.execute(
                f"SELECT {key}, sum(n) FROM {counts} c "
                f"GROUP BY {key} HAVING sum(n) <> 0 ORDER BY {key}"
            )
            rows += cursor.fetchall()
        cursor.execute("SELECT 'learner', * FROM report_learner_rollup ORDER BY 2, 3, 4, 5")
        return rows + cursor.fetchall()
