"""The attempts CSV writes what a learner gave to a question not answered by picks: the
number or text typed (as the attempt's language writes it), the items in the learner's
order, each left item with the right item it was matched to."""

from django.core.management import call_command
from django.test import Client

from tests.factories import (
    answer_matches,
    answer_number,
    answer_order,
    make_matching,
    make_numerical,
    make_ordering,
    make_quiz,
    make_short_answer,
    start,
)
from tests.reports.test_reports_csv import read_csv


def test_the_attempts_csv_writes_each_free_answer_as_the_learner_gave_it(instructor_client, guide):
    quiz = make_quiz(slug="kinds", questions=4, guide=guide)
    make_numerical(quiz, 1)
    make_short_answer(quiz, 2)
    items = list(make_ordering(quiz, 3).choices.order_by("position"))
    a, b, c, distractor = make_matching(quiz, 4).choices.order_by("position")
    learner = Client()
    attempt = start(learner, quiz, "fr")
    assert answer_number(learner, attempt, 1, "2 048", "fr").status_code == 302
    assert answer_number(learner, attempt, 2, "diffusion totale", "fr").status_code == 302
    assert answer_order(learner, attempt, 3, items[::-1], "fr").status_code == 302
    pairs = [(a, a), (b, c), (c, distractor)]
    assert answer_matches(learner, attempt, 4, pairs, "fr").status_code == 302

    for lang in ("en", "fr"):  # The attempt's language, whatever the export's.
        rows = read_csv(instructor_client.get(f"/{lang}/reports/quizzes/kinds/attempts.csv"))
        answers = rows[1][10::3]
        assert answers[0] == "2\u00a0048"  # As the French attempt writes the number.
        assert answers[1] == "diffusion totale"  # What was typed, not the pattern it matched.
        assert answers[2] == " > ".join(item.text_fr for item in items[::-1])
        assert answers[3] == (
            f"{a.text_fr} → {a.match_fr} | {b.text_fr} → {c.match_fr} | "
            f"{c.text_fr} → {distractor.match_fr}"
        )


def test_a_free_answer_recorded_without_its_response_is_written_by_its_pick(instructor_client):
    """seedattempts records a numerical answer by its matched choice only."""
    quiz = make_quiz(slug="seeded", questions=2)
    make_numerical(quiz, 1)
    call_command("seedattempts", "seeded", count=20, seed=3, verbosity=0)
    rows = read_csv(instructor_client.get("/en/reports/quizzes/seeded/attempts.csv?attempts=all"))
    assert len(rows) == 1 + 20
    assert {row[10] for row in rows[1:]} <= {"1024", "1 024", "32"}  # The attempt's language.
