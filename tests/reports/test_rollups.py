"""The rollups PostgreSQL's triggers keep give every figure of a report as scanning the
attempts does, under every filter, after answers, completions, regrades and deletions."""

from dataclasses import asdict
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from quizzes.models import Answer, AnswerChoice, Attempt, Quiz
from quizzes.reports import selectors as reports

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="The rollups are PostgreSQL's (triggers)."
)


def figures(quiz, report_filter):
    items = reports.item_analysis(quiz, report_filter)
    return {
        "summary": reports.quiz_summary(quiz, report_filter, items=items),
        "items": [
            (
                stats.question.pk,
                stats.overall,
                stats.by_language,
                [(c.choice.pk, c.count, c.share) for c in stats.choices],
                stats.flags,
                [asdict(w) for w in stats.wrong_responses],
                [asdict(gap) for gap in stats.gaps],
                [asdict(variant) for variant in stats.variants],
                stats.variants_answered,
            )
            for stats in items.questions
        ],
        "overview": reports.learners_overview(quiz, report_filter),
    }


def both_ways(quiz, report_filter, settings):
    settings.REPORT_ROLLUPS = True
    assert reports._rollup(quiz, report_filter) is not None
    kept = figures(quiz, report_filter)
    settings.REPORT_ROLLUPS = False
    scanned = figures(quiz, report_filter)
    settings.REPORT_ROLLUPS = True
    return kept, scanned


@pytest.mark.django_db
def test_the_rollups_give_the_figures_of_the_scan(settings):
    call_command("loaddemo", verbosity=0)
    call_command("seedattempts", "data-parallelism-quiz", count=120, seed=7, verbosity=0)
    quiz = Quiz.objects.get(slug="data-parallelism-quiz")
    attempts = list(Attempt.objects.filter(quiz=quiz).order_by("pk"))
    # A regrade, a claim, a deleted attempt, a finished one reopened, answers and picks
    # taken away, a pick changed.
    Answer.objects.filter(attempt__in=attempts[::5]).update(credit=1, is_correct=True)
    Attempt.objects.filter(pk__in=[a.pk for a in attempts[1::7]]).update(score=3)
    Attempt.objects.filter(pk=attempts[2].pk).update(completed_at=None, score=None)
    Attempt.objects.filter(pk=attempts[3].pk).update(language="fr", is_first=False)
    attempts[4].delete()
    AnswerChoice.objects.filter(answer__attempt=attempts[6]).delete()
    Answer.objects.filter(attempt=attempts[6]).delete()
    several = AnswerChoice.objects.filter(answer__choice=None, answer__attempt__in=attempts[8:40])
    several.filter(pk__in=several.values("pk")[:5]).delete()
    moved = several.first()
    AnswerChoice.objects.filter(pk=moved.pk).update(
        choice=moved.choice.question.choices.exclude(picks__answer=moved.answer).first()
    )
    today = timezone.localdate()
    filters = [
        reports.ReportFilter(),
        reports.ReportFilter(first_only=False),
        reports.ReportFilter(language="fr"),
        reports.ReportFilter(first_only=False, with_practice=True, language="en"),
        reports.ReportFilter(date_from=today - timedelta(days=40)),
        reports.ReportFilter(date_from=today - timedelta(days=60), date_to=today - timedelta(30)),
        reports.ReportFilter(first_only=False, date_to=today - timedelta(days=20)),
    ]
    for report_filter in filters:
        kept, scanned = both_ways(quiz, report_filter, settings)
        assert kept == scanned, report_filter
    first = figures(quiz, filters[0])
    assert first["summary"].completed > 50
    assert any(item[6] for item in first["items"]) and any(item[7] for item in first["items"])
    assert figures(quiz, filters[-2])["summary"].completed > 5


@pytest.mark.django_db
def test_a_report_of_a_class_or_in_another_zone_scans_the_attempts(settings):
    quiz = Quiz.objects.create(slug="q", title="Q")
    assert reports._rollup(quiz, reports.ReportFilter(klass=1)) is None
    assert reports._rollup(quiz, reports.ReportFilter(taught_by=1)) is None
    with timezone.override("Europe/Paris"):
        assert reports._rollup(quiz, reports.ReportFilter()) is None
