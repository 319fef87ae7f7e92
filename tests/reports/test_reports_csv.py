"""The CSV exports beside the report page, on the hand-computed data set of test_reports."""

import csv
import io
from datetime import timedelta

from django.contrib.auth.models import User
from django.http import StreamingHttpResponse

from quizzes.learning.services import answer_record, practice_start
from quizzes.models import Attempt
from tests.factories import content_of
from tests.reports.report_data import URL


def read_csv(response) -> list[list[str]]:
    assert isinstance(response, StreamingHttpResponse)
    body = b"".join(response.streaming_content)
    assert body.startswith("\ufeff".encode())
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))


def test_attempts_csv_one_row_per_completed_first_attempt(instructor_client, hand_quiz):
    response = instructor_client.get(URL + "attempts.csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="dp-quiz-attempts.csv"'
    rows = read_csv(response)
    assert rows[0][:13] == [
        "Learner",
        "Completed at",
        "Language",
        "Score",
        "Out of",
        "Percent",
        "Kind",
        "First attempt",
        "Duration (seconds)",
        "Embedded in",
        "Question 1 choice",
        "Question 1 result",
        "Question 1 credit",
    ]
    assert len(rows[0]) == 10 + 3 * 5
    learners = [row[0] for row in rows[1:]]
    assert learners == ["Ana Alves", "ben", "'=SUM(A1)", "Dee Dupont", "Anonymous", "Anonymous"]
    ana = rows[1]
    assert ana[2:8] == ["en", "3", "5", "60.0", "Quiz", "yes"]
    assert ana[10:16] == ["Q1 choice 2", "wrong", "0", "Q2 choice 1", "right", "1"]
    # A French attempt's picks are the French texts it showed.
    assert rows[3][2:4] == ["fr", "1"]
    assert rows[3][10:12] == ["Q1 choix 3", "wrong"]


def test_attempts_csv_gives_kind_first_attempt_and_duration(instructor_client, hand_quiz):
    ana = User.objects.get(username="ana")
    first, retry = Attempt.objects.filter(user=ana).order_by("started_at")
    content = content_of(hand_quiz)
    practice = practice_start(attempt=first, quiz=content, user=ana)
    for question in content.questions_among(practice.question_ids):
        answer_record(
            attempt=practice, quiz=content, question=question, choices=(question.choices[0],)
        )
    for attempt, seconds in [(first, 95), (retry, 30), (practice, 12)]:
        attempt.refresh_from_db()
        completed = attempt.started_at + timedelta(seconds=seconds)
        Attempt.objects.filter(pk=attempt.pk).update(completed_at=completed)
    rows = read_csv(instructor_client.get(URL + "attempts.csv", {"attempts": "all"}))
    assert len(rows) == 1 + 7  # Practice attempts only when asked for.
    query = {"attempts": "all", "practice": "on"}
    rows = read_csv(instructor_client.get(URL + "attempts.csv", query))
    anas = sorted(tuple(row[6:9]) for row in rows[1:] if row[0] == "Ana Alves")
    assert anas == [("Practice", "no", "12"), ("Quiz", "no", "30"), ("Quiz", "yes", "95")]


def test_attempts_csv_follows_the_filters(instructor_client, hand_quiz):
    rows = read_csv(instructor_client.get(URL + "attempts.csv", {"attempts": "all"}))
    assert len(rows) == 1 + 7
    assert [row[0] for row in rows[1:]].count("Ana Alves") == 2
    rows = read_csv(instructor_client.get(URL + "attempts.csv", {"language": "fr"}))
    assert [row[2] for row in rows[1:]] == ["fr", "fr", "fr"]


def test_attempts_csv_in_french_uses_french_texts(instructor_client, hand_quiz):
    rows = read_csv(instructor_client.get("/fr/reports/quizzes/dp-quiz/attempts.csv"))
    assert rows[0][0] == "Apprenant"
    assert rows[1][6:8] == ["Quiz", "oui"]
    # Ana's attempt was in English: her picks are the English texts it showed.
    assert rows[1][10:13] == ["Q1 choice 2", "faux", "0"]
    assert rows[3][10:13] == ["Q1 choix 3", "faux", "0"]


def test_questions_csv_gives_the_texts_in_the_language_filtered(instructor_client, hand_quiz):
    rows = read_csv(instructor_client.get(URL + "questions.csv", {"language": "fr"}))
    q2 = dict(zip(rows[0], rows[2], strict=False))
    assert q2["Prompt"] == "Énoncé de la question 2"  # The header stays the export's.
    assert q2["Choice 2"] == "Q2 choix 2"
    rows = read_csv(instructor_client.get(URL + "questions.csv"))
    assert rows[2][1] == "Question 2 prompt"


def test_questions_csv_is_the_item_analysis(instructor_client, hand_quiz):
    response = instructor_client.get(URL + "questions.csv")
    assert response["Content-Disposition"] == 'attachment; filename="dp-quiz-questions.csv"'
    rows = read_csv(response)
    header = rows[0]
    assert header[:6] == [
        "Question",
        "Prompt",
        "Answers",
        "Facility",
        "Discrimination index",
        "Discriminative efficiency",
    ]
    assert "Facility (fr)" in header and "Flags" in header
    q2 = dict(zip(header, rows[2], strict=False))
    assert q2["Prompt"] == "Question 2 prompt"
    assert (q2["Answers"], q2["Facility"]) == ("6", "0.167")
    # Negative numbers stay numbers: only text is escaped.
    assert (q2["Discrimination index"], q2["Discriminative efficiency"]) == ("-34.922", "-71.429")
    assert q2["Facility (en)"] == "0.333" and q2["Facility (fr)"] == "0.0"
    assert q2["Flags"].startswith("Too hard: fewer than 20% of learners answer it right.")
    assert (q2["Choice 2"], q2["Choice 2 correct"], q2["Choice 2 picked"]) == (
        "Q2 choice 2",
        "no",
        "4",
    )
    assert q2["Choice 2 share"] == "0.667"
    q4 = dict(zip(header, rows[4], strict=False))
    assert q4["Discrimination index"] == "" and q4["Facility"] == "1.0"


def test_text_cells_that_look_like_formulas_are_escaped(instructor_client, hand_quiz):
    question = hand_quiz.questions.get(position=1)
    question.prompt_en = "+1 or -1?"
    question.save()
    choice = question.choices.get(position=2)
    choice.text_en = "@SUM(1)"
    choice.save()
    rows = read_csv(instructor_client.get(URL + "questions.csv"))
    assert rows[1][1] == "'+1 or -1?"
    assert "'@SUM(1)" in rows[1]
    rows = read_csv(instructor_client.get(URL + "attempts.csv"))
    assert rows[1][10] == "'@SUM(1)"
