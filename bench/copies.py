"""Grow a quiz's seeded attempts tenfold and more in SQL, for `make bench-reports`.

`seedattempts` writes attempts through the ORM at about 10,000 answers a second: two
hours for a million attempts. This copies the attempts `seedattempts` wrote (the
"pattern": their scores, languages, first attempts and retries, choices, typed responses,
unfinished and abandoned ones, anonymous and signed-in learners) as new learners, in
INSERT … SELECT statements over generate_series: each copy gets its own accounts (or
anonymous keys), new public ids, and its dates moved back by a whole number of days, so
that the copies spread over a year as a popular quiz's attempts would. Ids are the
pattern's plus a multiple of a stride, so a copy's answers and picks find their attempt
without a lookup. A calculated question's answer keeps its pattern's variant
(`Answer.variant`): the reports count it so, though the copy's own public id would draw
another.

The copies are written with the triggers off (`session_replication_role`, the superuser's
setting for loading data), the foreign keys' checks among them: the ids are the pattern's,
checked already, and the checks queued at commit for twelve million answers took longer
than the inserts. So are the report rollups' triggers: the caller rebuilds the rollups
(`quizzes.reports.rollups.rebuild`), as the migration that made them did.
"""

from psycopg import sql

# How far back copy c's dates move: spread over a year, a whole number of days.
_SHIFT = "make_interval(days => mod(c * 37, 360))"


def copy_attempts(cursor, *, quiz_id: int, pattern: tuple[int, int], copies: range) -> None:
    """Write copies `copies` (numbers from 1) of the quiz's attempts with ids in `pattern`
    (first, last), with their learners, answers and picks; then move the id sequences on.
    In a transaction of the caller's (the triggers are off until it ends)."""
    first, last = pattern
    cursor.execute("SET LOCAL session_replication_role = replica")
    # Strides fixed by the pattern alone, so that later copies don't collide with earlier
    # ones: every id written is an original id plus c × stride.
    cursor.execute(
        """SELECT %s::bigint + 1,
                  (SELECT max(user_id) FROM quizzes_attempt WHERE id BETWEEN %s AND %s),
                  (SELECT max(id) FROM quizzes_answer WHERE attempt_id BETWEEN %s AND %s),
                  (SELECT coalesce(max(c.id), 0) FROM quizzes_answerchoice c
                     JOIN quizzes_answer a ON a.id = c.answer_id
                    WHERE a.attempt_id BETWEEN %s AND %s)""",
        (last, first, last, first, last, first, last),
    )
    attempt_stride, user_stride, answer_stride, pick_stride = cursor.fetchone()
    params = {
        "quiz": quiz_id,
        "first": first,
        "last": last,
        "from": copies.start,
        "to": copies.stop - 1,
        "as": attempt_stride,
        "us": user_stride + 1,
        "ans": answer_stride + 1,
        "ps": pick_stride + 1,
    }
    shift = sql.SQL(_SHIFT)
    cursor.execute(
        sql.SQL(
            """INSERT INTO auth_user (id, password, is_superuser, username, first_name,
                                      last_name, email, is_staff, is_active, date_joined)
               SELECT u.id + c * %(us)s, '!', false, u.username || '-c' || c, u.first_name,
                      u.last_name || '-c' || c, '', false, true, u.date_joined - {shift}
               FROM auth_user u, generate_series(%(from)s, %(to)s) c
               WHERE u.id IN (SELECT user_id FROM quizzes_attempt
                              WHERE id BETWEEN %(first)s AND %(last)s)"""
        ).format(shift=shift),
        params,
    )
    cursor.execute(
        sql.SQL(
            """INSERT INTO quizzes_attempt (id, public_id, learner_key, language, started_at,
                   completed_at, score, max_score, user_id, quiz_id, is_first, abandoned_at,
                   kind, question_ids, deadline, number, assignment_id)
               SELECT a.id + c * %(as)s, gen_random_uuid(),
                      CASE WHEN a.learner_key = '' THEN ''
                           ELSE left('c' || lpad(c::text, 3, '0') || a.learner_key, 40) END,
                      a.language, a.started_at - {shift}, a.completed_at - {shift}, a.score,
                      a.max_score, a.user_id + c * %(us)s, a.quiz_id, a.is_first,
                      a.abandoned_at - {shift}, a.kind, a.question_ids, a.deadline - {shift},
                      a.number, a.assignment_id
               FROM quizzes_attempt a, generate_series(%(from)s, %(to)s) c
               WHERE a.id BETWEEN %(first)s AND %(last)s AND a.quiz_id = %(quiz)s
               ORDER BY c, a.id"""
        ).format(shift=shift),
        params,
    )
    cursor.execute(
        sql.SQL(
            """INSERT INTO quizzes_answer (id, is_correct, answered_at, attempt_id, question_id,
                                           choice_id, response, variant, credit)
               SELECT n.id + c * %(ans)s, n.is_correct, n.answered_at - {shift},
                      n.attempt_id + c * %(as)s, n.question_id, n.choice_id, n.response,
                      n.variant, n.credit
               FROM quizzes_answer n, generate_series(%(from)s, %(to)s) c
               WHERE n.attempt_id BETWEEN %(first)s AND %(last)s
               ORDER BY c, n.id"""
        ).format(shift=shift),
        params,
    )
    cursor.execute(
        """INSERT INTO quizzes_answerchoice (id, answer_id, choice_id)
           SELECT p.id + c * %(ps)s, p.answer_id + c * %(ans)s, p.choice_id
           FROM quizzes_answerchoice p JOIN quizzes_answer n ON n.id = p.answer_id,
                generate_series(%(from)s, %(to)s) c
           WHERE n.attempt_id BETWEEN %(first)s AND %(last)s""",
        params,
    )
    for table in ("auth_user", "quizzes_attempt", "quizzes_answer", "quizzes_answerchoice"):
        cursor.execute(
            sql.SQL(
                "SELECT setval(pg_get_serial_sequence({table}, 'id'), max(id)) FROM {ident}"
            ).format(table=sql.Literal(table), ident=sql.Identifier(table))
        )
