"""A score report data set small enough to compute by hand, shared by the report tests.

Six learners take a five-question quiz (three choices each, choice 1 right):

    learner  lang  Q1 Q2 Q3 Q4 Q5  score  (picks: choice number per question)
    A        en     0  1  1  1  0    3    2 1 1 1 2
    B        en     1  0  1  1  0    3    1 2 1 1 3
    C        fr     0  0  0  1  0    1    3 2 2 1 2
    D        en     1  0  1  1  1    4    1 2 1 1 1
    E (anon) fr     1  0  1  1  1    4    1 3 1 1 1
    F (anon) fr     1  0  0  1  1    3    1 2 2 1 1

A, B, C and D are signed in (C's name begins with "="), E and F anonymous.
On a later day A retries and gets 5/5, B starts again and stops after one
answer, and G starts once and never finishes.

Rest-of-test score y = score - x. With n = 6, D = 100 (nΣxy - ΣxΣy) /
sqrt((nΣx² - (Σx)²)(nΣy² - (Σy)²)); DE = 100 (nΣxy - ΣxΣy) / (nΣxy_max - ΣxΣy)
where Σxy_max adds the Σx highest rest scores.

    Q1: x 0 1 0 1 1 1, y 3 2 1 3 3 2: Σx 4, Σy 14, Σxy 10, Σy² 36
        D = 100·4/sqrt(8·20) = 31.62; top four y 3+3+3+2 = 11, DE = 100·4/(66-56) = 40
    Q2: x 1 0 0 0 0 0, y 2 3 1 4 4 3: Σx 1, Σy 17, Σxy 2, Σy² 55
        D = 100·(12-17)/sqrt(5·41) = -34.92; top y 4, DE = 100·-5/(24-17) = -71.43
    Q3: x 1 1 0 1 1 0, y 2 2 1 3 3 3: the same sums as Q1, D = 31.62, DE = 40
    Q4: everyone right: facility 1, no variance, D and DE undefined
    Q5: x 0 0 0 1 1 1, y 3 3 1 3 3 2: Σx 3, Σy 15, Σxy 8, Σy² 41
        D = 100·3/sqrt(9·21) = 21.82; top three y 9, DE = 100·3/(54-45) = 33.33

KR-20: Σpq = 2/9 + 5/36 + 2/9 + 0 + 1/4 = 5/6; scores 3 3 1 4 4 3 have mean 3
and variance 6/6 = 1, so alpha = 5/4 · (1 - 5/6) = 5/24 = 0.2083.
Percentages 60 60 20 80 80 60: mean 60, median 60, sample SD sqrt(2400/5) =
21.91, pass rate at 70 %: 2/6.

Free answers (`free_quiz`): eight learners type their answers to a numerical question
(Q1: 1024 right, 32 a known mistake) and a short-answer one (Q2: "all-reduce" right,
"réduction globale" in French; "*broadcast*", "*diffusion*" known mistakes):

    learner  lang  Q1      Q2
    A        en    32      broadcast
    B        en    32      all-reduce
    C        fr    32      diffusion
    D        fr    1024    gather
    E        en    1000    gather
    F        fr    1000    reduce
    G        en    7       reduce
    H        en    1024    x
    I        en    1024    y
    J        fr    32      (stops after Q1: not counted)

Wrong answers, most frequent first, then by the response, at most five:
    Q1: 32 — 3 (en 2, fr 1), matches 32; 1000 — 2 (en 1, fr 1); 7 — 1 (en 1)
    Q2: gather — 2 (en 1, fr 1); reduce — 2 (en 1, fr 1); broadcast — 1 (en 1), matches
        *broadcast*; diffusion — 1 (fr 1), matches *diffusion*; x — 1 (en 1); y is the sixth.
"""

import secrets
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Permission, User
from django.http import QueryDict
from django.utils import translation

from quizzes.learning.forms import AnswerForm
from quizzes.learning.services import answer_record, attempt_start
from quizzes.models import Attempt, Quiz
from tests.factories import content_of, make_numerical, make_quiz, make_short_answer

PICKS = {
    "A": ("en", [2, 1, 1, 1, 2]),
    "B": ("en", [1, 2, 1, 1, 3]),
    "C": ("fr", [3, 2, 2, 1, 2]),
    "D": ("en", [1, 2, 1, 1, 1]),
    "E": ("fr", [1, 3, 1, 1, 1]),
    "F": ("fr", [1, 2, 2, 1, 1]),
}
SIGNED_IN = {"A": ("ana", "Ana", "Alves"), "B": ("ben", "", ""), "C": ("cy", "=SUM(A1)", "")}
SIGNED_IN["D"] = ("dee", "Dee", "Dupont")
FIRST_DAY = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
LATER_DAY = datetime(2026, 3, 10, 10, 0, tzinfo=UTC)
URL = "/en/reports/quizzes/dp-quiz/"


def take(quiz: Quiz, *, user, lang: str, picks: list[int], when: datetime) -> Attempt:
    """An attempt through the real services, answering question n with choice picks[n-1]."""
    with translation.override(lang):
        attempt = attempt_start(quiz=quiz, user=user, learner_key=secrets.token_hex(16))
    content = content_of(quiz)
    for question, number in zip(content.questions, picks, strict=False):
        answer_record(
            attempt=attempt,
            quiz=content,
            question=question,
            choices=(question.choices[number - 1],),
        )
    Attempt.objects.filter(pk=attempt.pk).update(started_at=when)
    return attempt


@pytest.fixture
def hand_quiz(db) -> Quiz:
    quiz = make_quiz(questions=5, choices=3)
    users = {}
    for key, (username, first, last) in SIGNED_IN.items():
        users[key] = User.objects.create_user(username, first_name=first, last_name=last)
    for index, (key, (lang, picks)) in enumerate(PICKS.items()):
        take(
            quiz, user=users.get(key), lang=lang, picks=picks, when=FIRST_DAY.replace(minute=index)
        )
    take(quiz, user=users["A"], lang="en", picks=[1, 1, 1, 1, 1], when=LATER_DAY)
    take(quiz, user=users["B"], lang="en", picks=[1], when=LATER_DAY)
    gina = User.objects.create_user("gina")
    take(quiz, user=gina, lang="en", picks=[1, 1], when=FIRST_DAY)
    return quiz


FREE = {
    "A": ("en", ["32", "broadcast"]),
    "B": ("en", ["32", "all-reduce"]),
    "C": ("fr", ["32", "diffusion"]),
    "D": ("fr", ["1024", "gather"]),
    "E": ("en", ["1000", "gather"]),
    "F": ("fr", ["1000", "reduce"]),
    "G": ("en", ["7", "reduce"]),
    "H": ("en", ["1024", "x"]),
    "I": ("en", ["1024", "y"]),
    "J": ("fr", ["32"]),
}


def type_answers(quiz: Quiz, *, lang: str, typed: list[str]) -> Attempt:
    """An attempt through the real form and services, typing answer n as typed[n-1]."""
    with translation.override(lang):
        attempt = attempt_start(quiz=quiz, user=None, learner_key=secrets.token_hex(16))
        content = content_of(quiz)
        for question, text in zip(content.questions, typed, strict=False):
            posted = QueryDict(mutable=True)
            posted["choice"] = text
            form = AnswerForm(posted, choices=question.choices, kind=question.type)
            assert form.is_valid(), form.errors
            answer_record(
                attempt=attempt,
                quiz=content,
                question=question,
                choices=form.cleaned_data["choices"],
                response=form.cleaned_data["response"],
            )
    Attempt.objects.filter(pk=attempt.pk).update(started_at=FIRST_DAY)
    return attempt


@pytest.fixture
def free_quiz(db) -> Quiz:
    quiz = make_quiz(slug="free-quiz", questions=2)
    make_numerical(quiz, 1)
    make_short_answer(quiz, 2)
    for lang, typed in FREE.values():
        type_answers(quiz, lang=lang, typed=typed)
    return quiz


def instructor(username: str = "ines") -> User:
    user = User.objects.create_user(username)
    user.user_permissions.add(Permission.objects.get(codename="view_report"))
    return user


@pytest.fixture
def instructor_client(client, db):
    client.force_login(instructor())
    return client
