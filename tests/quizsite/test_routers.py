"""The reports' read replica: the router."""

from quizsite.routers import ReportsRouter, reading_reports, reading_reports_stream
from quizzes.models import Answer, Attempt, Quiz

router = ReportsRouter()


def test_reads_go_to_the_replica_only_while_reading_reports():
    assert router.db_for_read(Answer) is None
    with reading_reports():
        assert router.db_for_read(Answer) == "reports"
        assert router.db_for_read(Quiz) == "reports"
    assert router.db_for_read(Answer) is None


def test_reading_reports_as_a_decorator_ends_with_the_call_even_when_it_raises():
    @reading_reports()
    def view(fail: bool = False):
        if fail:
            raise ValueError
        return router.db_for_read(Attempt)

    assert view() == "reports"
    assert view() == "reports"  # a fresh context each call
    assert router.db_for_read(Attempt) is None
    try:
        view(fail=True)
    except ValueError:
        pass
    assert router.db_for_read(Attempt) is None


def test_writes_always_go_to_the_primary():
    with reading_reports():
        assert router.db_for_write(Attempt) is None


def test_a_stream_reads_reports_while_producing_each_item_and_not_between():
    def rows():
        for _ in range(3):
            yield router.db_for_read(Answer)

    seen = []
    for item in reading_reports_stream(rows()):
        seen.append((item, router.db_for_read(Answer)))
    assert seen == [("reports", None)] * 3


def test_the_replica_is_never_migrated():
    assert router.allow_migrate("reports", "quizzes", "answer") is False
    assert router.allow_migrate("reports", "auth") is False
    assert router.allow_migrate("default", "quizzes", "answer") is None


def test_objects_from_primary_and_replica_may_be_related():
    quiz, attempt = Quiz(), Attempt()
    quiz._state.db, attempt._state.db = "reports", "default"
    assert router.allow_relation(quiz, attempt) is True
    attempt._state.db = "elsewhere"
    assert router.allow_relation(quiz, attempt) is None
