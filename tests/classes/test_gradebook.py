"""The gradebook: grades by each assignment's method, its marks (late, missing, in progress),
the history of rule changes, the CSV, who may read it, and its queries, flat in learners and
assignments."""

import csv
import io
import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.formats import date_format

from quizzes.classes.gradebook import gradebook
from quizzes.classes.services import class_create, class_join
from quizzes.models import AssignmentChange, Grading, Override
from tests.classes.conftest import make_learner, rule_changes_shown, signed_in
from tests.classes.test_query_counts import SIGNED_IN
from tests.factories import make_assignment, make_quiz, make_staff, take_assignment

NOW = timezone.now()
DAY = timedelta(days=1)
# The class (if the user may read it), its assignments with their quizzes, its learners,
# their overrides, their attempts, the history.
GRADEBOOK = SIGNED_IN + 6


def gradebook_url(klass, lang: str = "en") -> str:
    return f"/{lang}/classes/{klass.pk}/gradebook/"


def review_url(attempt) -> str:
    return f"/en/reports/quizzes/{attempt.quiz.slug}/attempts/{attempt.public_id}/"


@pytest.fixture
def quiz5(db):
    return make_quiz(slug="five", questions=5)


@pytest.fixture
def ada(klass):
    learner = make_learner("ada")
    class_join(klass=klass, learner=learner)
    return learner


def three_attempts(assignment, learner) -> list:
    """40 %, then 80 %, then 60 %."""
    return [
        take_assignment(assignment, learner, right=right, started=NOW - n * DAY, finished=NOW)
        for n, right in ((5, 2), (4, 4), (3, 3))
    ]


@pytest.mark.parametrize(
    ("grading", "grade", "linked"),
    [
        (Grading.HIGHEST, 80, 1),
        (Grading.FIRST, 40, 0),
        (Grading.LAST, 60, 2),
        (Grading.AVERAGE, 60, 2),
    ],
)
def test_the_grade_follows_the_method(klass, ada, quiz5, grading, grade, linked):
    assignment = make_assignment(klass, quiz5, grading=grading)
    attempts = three_attempts(assignment, ada)
    cell = gradebook(klass=klass).rows[0].cells[0]
    assert round(cell.grade) == grade
    assert cell.attempts == 3
    assert cell.attempt == attempts[linked].public_id
    assert not (cell.late or cell.missing or cell.in_progress)


def test_changing_the_method_regrades_and_shows_in_the_history(
    teacher, instructor, klass, ada, quiz5
):
    assignment = make_assignment(klass, quiz5, grading=Grading.HIGHEST)
    three_attempts(assignment, ada)
    page = teacher.get(gradebook_url(klass)).content.decode()
    assert "80%" in page
    assert "No rule has changed since the first attempt." in page
    assignment.grading = Grading.FIRST
    assignment.save()
    AssignmentChange.objects.create(
        assignment=assignment,
        changed_by=instructor,
        field="grading",
        before="highest",
        after="first",
    )
    page = teacher.get(gradebook_url(klass)).content.decode()
    assert "40%" in page and "80%" not in page.split("<tfoot>")[0].split("<tbody>")[1]
    assert rule_changes_shown(page) == [
        ("teacher", quiz5.title, "Grading method", "Highest grade", "First attempt")
    ]


def test_late_missing_in_progress_and_overdue(klass, quiz5):
    learners = [make_learner(name) for name in ("a-late", "b-missing", "c-open", "d-overdue")]
    for learner in learners:
        class_join(klass=klass, learner=learner)
    closed = make_assignment(klass, quiz5, opens_at=NOW - 9 * DAY, closes_at=NOW - DAY)
    open_one = make_assignment(
        klass, make_quiz(slug="open", questions=5), closes_at=NOW + DAY, time_limit=DAY
    )
    late, _missing, in_progress, overdue = learners
    take_assignment(closed, late, right=5, started=NOW - 2 * DAY, finished=NOW - DAY / 2)
    take_assignment(open_one, in_progress, right=1, answered=1, started=NOW, deadline=NOW + DAY)
    # Past its deadline and not closed yet: finished at its deadline, 2 of 5 right so far.
    take_assignment(
        closed, overdue, right=2, answered=3, started=NOW - 3 * DAY, deadline=NOW - DAY / 2
    )
    rows = {row.name: row.cells for row in gradebook(klass=klass).rows}
    assert rows["a-late"][0].late and rows["a-late"][0].grade == 100
    assert rows["a-late"][1].missing is False  # Not closed yet.
    assert rows["b-missing"][0].missing and rows["b-missing"][0].grade is None
    assert rows["c-open"][1].in_progress and rows["c-open"][1].grade is None
    assert rows["c-open"][0].missing
    overdue_cell = rows["d-overdue"][0]
    assert (overdue_cell.grade, overdue_cell.attempts, overdue_cell.late) == (40, 1, True)
    assert not overdue_cell.in_progress


def test_the_page_links_each_grade_to_its_review(teacher, klass, ada, quiz5):
    assignment = make_assignment(klass, quiz5)
    best = three_attempts(assignment, ada)[1]
    response = teacher.get(gradebook_url(klass))
    assert response.status_code == 200
    page = response.content.decode()
    assert f'<a href="{review_url(best)}">80%</a> <small>3 attempts</small>' in page
    assert f"/en/reports/quizzes/five/?class={klass.pk}" in page
    assert f"/en/classes/{klass.pk}/gradebook.csv" in page
    assert teacher.get(review_url(best)).status_code == 200
    assert gradebook_url(klass) in teacher.get(f"/en/classes/{klass.pk}/").content.decode()


def test_the_page_in_french(teacher, klass, ada, quiz5):
    assignment = make_assignment(klass, quiz5, closes_at=NOW - DAY)
    take_assignment(assignment, ada, right=4, started=NOW - 2 * DAY, finished=NOW)
    page = teacher.get(gradebook_url(klass, "fr")).content.decode()
    assert "Carnet de notes" in page
    assert "80\u202f%" in page
    assert "1 tentative" in page
    assert "en retard" in page
    assert "Quiz sur le parallélisme des données" in page
    assert "Moyenne de la classe" in page


def test_the_csv(teacher, klass, quiz5):
    tricky = User.objects.create_user("tricky", first_name="=HYPERLINK(1)")
    plain = make_learner("plain")
    for learner in (tricky, plain):
        class_join(klass=klass, learner=learner)
    assignment = make_assignment(klass, quiz5, closes_at=NOW - DAY)
    take_assignment(assignment, plain, right=3, started=NOW - 3 * DAY, finished=NOW - 2 * DAY)
    response = teacher.get(f"/en/classes/{klass.pk}/gradebook.csv")
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    body = b"".join(response.streaming_content).decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(body)))
    assert rows[0] == [
        "Learner",
        "Username",
        "Data parallelism quiz: grade (%)",
        "Data parallelism quiz: attempts",
        "Data parallelism quiz: marks",
        "Mean (%)",
    ]
    assert rows[1] == ["plain", "plain", "60.0", "1", "", "60.0"]
    assert rows[2] == ["'=HYPERLINK(1)", "tricky", "", "0", "missing", ""]
    assert rows[3] == ["Class average", "", "60.0", "", ""]


def test_who_reads_a_gradebook(client, klass, ada, quiz5):
    make_assignment(klass, quiz5)
    url = gradebook_url(klass)
    coach = User.objects.create_user("coach")
    own = class_create(name="Coach's", instructor=coach)
    assert signed_in(coach).get(gradebook_url(own)).status_code == 200
    assert signed_in(coach).get(url).status_code == 404  # A class of someone else's.
    assert signed_in(coach).get(url.replace("gradebook/", "gradebook.csv")).status_code == 404
    site_wide = make_staff("reporter", "Instructors")  # Reads every learner's reports.
    page = signed_in(site_wide).get(url)
    assert page.status_code == 200
    assert f'href="/en/classes/{klass.pk}/"' not in page.content.decode()  # Not theirs.
    assert signed_in(make_staff("writer", "Editors")).get(url).status_code == 404
    assert signed_in(ada).get(url).status_code == 404
    assert client.get(url).status_code == 302


@pytest.mark.parametrize(("learners", "assignments"), [(2, 2), (5, 4)])
def test_gradebook_queries_are_flat(
    teacher, instructor, learners, assignments, django_assert_num_queries
):
    klass = class_create(name="Flat", instructor=instructor)
    people = [make_learner(f"l{n}") for n in range(learners)]
    for person in people:
        class_join(klass=klass, learner=person)
    for n in range(assignments):
        assignment = make_assignment(
            klass, make_quiz(slug=f"q{n}", questions=3), closes_at=NOW + (n - 1) * DAY
        )
        for index, person in enumerate(people):
            for _attempt in range(index % 3):
                take_assignment(assignment, person, right=2, started=NOW - DAY, finished=NOW)
            if index % 2:
                take_assignment(assignment, person, right=1, answered=1, started=NOW)
        AssignmentChange.objects.create(assignment=assignment, field="grading", after="last")
        for person in people[::2]:
            Override.objects.create(assignment=assignment, learner=person, extra_attempts=1)
    with django_assert_num_queries(GRADEBOOK):
        response = teacher.get(gradebook_url(klass))
    assert response.status_code == 200
    assert response.content.decode().count('<th scope="row">') == learners + 1
    with django_assert_num_queries(GRADEBOOK - 1):  # No history in the CSV.
        response = teacher.get(f"/en/classes/{klass.pk}/gradebook.csv")
        assert len(b"".join(response.streaming_content).splitlines()) == learners + 2


def test_an_override_is_marked_on_its_cell_with_who_gave_it_and_when(
    teacher, instructor, klass, ada
):
    bob = make_learner("bob")
    class_join(klass=klass, learner=bob)
    assignment = make_assignment(klass, make_quiz(slug="q", questions=2), attempt_limit=1)
    take_assignment(assignment, ada, right=1, started=NOW - DAY, finished=NOW)
    instructor.first_name, instructor.last_name = "Grace", "Hopper"
    instructor.save()
    given = Override.objects.create(
        assignment=assignment,
        learner=ada,
        extra_attempts=1,
        extra_time=timedelta(minutes=15),
        given_by=instructor,
    )
    Override.objects.create(assignment=assignment, learner=bob, extra_attempts=2)  # Empty cell.
    page = teacher.get(gradebook_url(klass)).content.decode()
    when = date_format(timezone.localtime(given.given_at), "SHORT_DATETIME_FORMAT")
    details = f"+1 attempt, +15 min, given by Grace Hopper on {when}"
    assert f'<span class="mark override" title="{details}">override' in page
    assert f'<span class="visually-hidden"> ({details})</span>' in page
    assert page.count('class="mark override"') == 2
    french = teacher.get(gradebook_url(klass, "fr")).content.decode()
    assert ">dérogation<" in french and "accordée par Grace Hopper" in french
    rows = list(
        csv.reader(
            io.StringIO(
                b"".join(
                    teacher.get(f"/en/classes/{klass.pk}/gradebook.csv").streaming_content
                ).decode()
            )
        )
    )
    assert rows[1][4] == "override" and rows[2][4] == "override"


def test_the_gradebook_shows_its_learners_a_page_at_a_time_with_the_whole_class_averages(
    teacher, klass, quiz5, monkeypatch
):
    monkeypatch.setattr("quizzes.classes.views.GRADEBOOK_PAGE", 2)
    assignment = make_assignment(klass, quiz5)
    for name, right in (("a", 5), ("b", 0), ("c", 0), ("d", 0), ("e", 0)):
        learner = make_learner(name)
        class_join(klass=klass, learner=learner)
        take_assignment(assignment, learner, right=right, started=NOW - DAY, finished=NOW)
    pages = [teacher.get(gradebook_url(klass) + f"?page={n}").content.decode() for n in (1, 3)]
    for page, names in zip(pages, (["a", "b"], ["e"]), strict=True):
        body = page.split("<tbody>")[1].split("</tbody>")[0]
        assert re.findall(r'<th scope="row">(\w+)</th>', body) == names
        assert "5 learners, their grades" in page
        assert "20%" in page.split("<tfoot>")[1]  # The class's: (100 + 0 × 4) / 5.
    assert 'href="?page=2" rel="next"' in pages[0] and "Page 1 of 3" in pages[0]
    assert 'href="?page=2" rel="prev"' in pages[1] and 'rel="next"' not in pages[1]


@pytest.mark.parametrize(
    ("query", "status"),
    [
        *[(f"page={page}", 200) for page in ("0", "-1", "x", "9" * 5000, "2.5", "")],
        ("page=%ED%A0%80", 200),  # A lone surrogate's bytes: read as U+FFFD.
        ("page=%00", 400),  # NUL: refused site-wide.
    ],
)
def test_a_gradebook_page_that_is_not_one_shows_the_nearest(
    teacher, klass, quiz5, ada, query, status
):
    make_assignment(klass, quiz5)
    response = teacher.get(gradebook_url(klass), QUERY_STRING=query)
    assert response.status_code == status
    assert ('<th scope="row">ada</th>' in response.content.decode()) == (status == 200)
