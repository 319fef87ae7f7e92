import json
import math
import random
import time
import uuid
from collections import defaultdict
from contextlib import contextmanager
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.utils import timezone

from quizzes.kinds import calculated
from quizzes.kinds.gaps import sub_question
from quizzes.kinds.numerical import Numerical, choice_value, is_any, plain
from quizzes.kinds.short_answer import accepted_text, shown_answer
from quizzes.kinds.single import SingleChoice
from quizzes.models import Answer, AnswerChoice, Attempt, Choice, Quiz, credit_of
from quizzes.snapshots import quiz_content

BATCH = 2000


@contextmanager
def _recorded_dates():
    """Let bulk_create keep the dates we give instead of stamping "now" (auto_now_add)."""
    fields = [Attempt._meta.get_field("started_at"), Answer._meta.get_field("answered_at")]
    for model_field in fields:
        model_field.auto_now_add = False
    try:
        yield
    finally:
        for model_field in fields:
            model_field.auto_now_add = True


class Command(BaseCommand):
    help = (
        "Write N synthetic completed attempts of a quiz, for reports and benchmarks: learners "
        "of varied ability, retries, both languages, dates over the last 90 days, a tenth more "
        "unfinished attempts, one question harder in French and one deliberately bad question "
        "(stronger learners pick a wrong choice more often)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--count", type=int, default=1000)
        parser.add_argument(
            "--seed", type=int, default=None, help="Random seed, for repeatable data."
        )

    def handle(self, *args, slug, count, seed, **options):
        try:
            quiz = Quiz.objects.get(slug=slug)
        except Quiz.DoesNotExist:
            raise CommandError(f"There is no quiz with the slug {slug!r}.") from None
        if count < 1:
            raise CommandError("--count must be at least 1.")
        # An ordering question's items are all "right": its answer is their order; a matching
        # question's pairs too: its answer is a right item for each left item.
        questions = [
            (
                question.pk,
                [
                    (pk, ok or question.kind in ("ordering", "matching"))
                    for pk, ok in question.choices.values_list("pk", "is_correct")
                ],
            )
            for question in quiz.questions.all()
        ]
        orders = set(quiz.questions.filter(kind="ordering").values_list("pk", flat=True))
        # A calculated question's answer keeps the variant its attempt drew (Answer.variant).
        drawing = {
            question.pk: calculated.parse_variables(question.variables)[0]
            for question in quiz.questions.all()
            if question.type.has_variables
        }
        lefts = defaultdict(list)  # A matching question's left items (choices with a text).
        for question_id, pk in (
            Choice.objects.filter(question__quiz=quiz, question__kind="matching")
            .exclude(text_en="")
            .exclude(text_en=None)
            .values_list("question_id", "pk")
        ):
            lefts[question_id].append(pk)
        if not questions or any(not any(ok for _pk, ok in choices) for _q, choices in questions):
            raise CommandError("Every question of the quiz needs choices with a right one.")
        # A gaps question is answered gap by gap, and graded as the learner's page grades it.
        gapped = {}
        if quiz.questions.filter(kind="gaps").exists():
            content = quiz_content(quiz_id=quiz.pk, updated_at=quiz.updated_at)
            gapped = {kept.pk: kept for kept in content.questions if kept.type.fills_prompt}
        for question in gapped.values():
            gaps = {choice.gap for choice in question.choices if choice.is_correct}
            if gaps != set(range(1, len(question.gaps) + 1)):
                raise CommandError("Every gap of a gaps question needs a right choice.")
        began = time.monotonic()
        rng = random.Random(seed)
        with _recorded_dates(), transaction.atomic():
            answers = _Seeder(quiz, questions, rng, orders, lefts, gapped, drawing).seed(count)
        _analysed()
        elapsed = time.monotonic() - began
        self.stdout.write(
            f"Seeded {count} completed attempts ({answers} answers) of {quiz.slug} "
            f"in {elapsed:.1f} s ({answers / elapsed:,.0f} answers/s)."
        )


def _analysed() -> None:
    """PostgreSQL's statistics of the tables just filled, at once, as its documentation asks
    after a bulk load: until autovacuum's next round they may say the tables are empty, and
    a join over them is then planned row by row (a DELETE of one attempt's picks took over
    15 minutes in a test). Inside a caller's transaction (a test's), ANALYZE counts its rows."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            tables = [model._meta.db_table for model in (Attempt, Answer, AnswerChoice)]
            cursor.execute(f"ANALYZE {', '.join(tables)}")


def _typed(gap, choice, language: str) -> str:
    """A gap's choice as an answer fills the gap with it (`Answer.response` keeps it so): a
    choice's id, a value, an accepted answer's text in the language without its stars."""
    if gap.kind == SingleChoice.name:
        return str(choice.pk)
    if gap.kind == Numerical.name:
        value = None if is_any(choice) else choice_value(choice)
        return "1" if value is None else plain(value)
    return shown_answer(accepted_text(choice, language)) or "x"


def _right_in_gap(gap, language: str) -> list[str]:
    """What fills a gap (`gaps.sub_question`) rightly: its right choices."""
    return [_typed(gap, choice, language) for choice in gap.choices if choice.is_correct]


def _wrong_in_gap(gap, language: str, right: str) -> list[str]:
    """What fills a gap wrongly, the most tempting first: its wrong choices (to pick, or
    known mistakes to type), then for a typed gap mistakes of a learner's own, the right
    value doubled or halved, the right answer's last letter left out or one added. The kind
    grades them: one that happens to be right counts as right."""
    wrong = [
        _typed(gap, choice, language)
        for choice in gap.choices
        if not choice.is_correct and not (gap.kind == Numerical.name and is_any(choice))
    ]
    if gap.kind == Numerical.name:
        wrong += [plain(Decimal(right) * 2), plain(Decimal(right) / 2)]
    elif gap.kind != SingleChoice.name:
        wrong += [right[:-1] or "x", f"{right}s"]
    return wrong


class _Seeder:
    def __init__(
        self,
        quiz: Quiz,
        questions: list,
        rng: random.Random,
        orders: set[int],
        lefts: dict[int, list[int]],
        gapped: dict,
        drawing: dict,
    ):
        self.quiz = quiz
        self.drawing = drawing  # The calculated questions' variables.
        self.questions = questions
        self.orders = orders  # The ordering questions: answered by an order, no pick.
        self.lefts = lefts  # The matching questions' left items: answered by pairs, no pick.
        self.gapped = gapped  # The gaps questions' kept content: answered gap by gap.
        self.rng = rng
        self.languages = [code for code, _name in settings.LANGUAGES]
        self.now = timezone.now()
        # Per question: difficulty, and how sharply it separates learners.
        self.difficulty = [rng.uniform(-1.5, 1.2) for _q in questions]
        self.sharpness = [rng.uniform(0.8, 2.0) for _q in questions]
        # The bad question: its keyed answer is what the strongest learners reject.
        self.bad = len(questions) // 2
        self.sharpness[self.bad] = -1.2
        self.french_harder = 1 if len(questions) > 2 else None
        # Each gap of a gaps question is harder or easier than its question.
        self.gap_difficulty = {
            pk: [rng.uniform(-1.0, 1.0) for _gap in question.gaps]
            for pk, question in gapped.items()
        }
        self.run = uuid.uuid4().hex[:8]

    def seed(self, count: int) -> int:
        answers = 0
        learner = 0
        pending: list[tuple[Attempt, int | None, list]] = []
        unfinished = count // 10
        made = 0
        while made < count + unfinished:
            learner += 1
            ability = self.rng.gauss(0, 1)
            signed_in = self.rng.random() < 0.7
            language = self.rng.choice(self.languages)
            tries = 1 + (self.rng.random() < 0.3) + (self.rng.random() < 0.1)
            start = self.now - timedelta(days=self.rng.uniform(4, 90))
            left_open = None  # The learner's unfinished attempt, abandoned if they start again.
            for number in range(tries):
                if made >= count + unfinished:
                    break
                done = made < count
                attempt = Attempt(
                    quiz=self.quiz,
                    learner_key="" if signed_in else f"seed{self.run}{learner:024d}"[:40],
                    language=language,
                    started_at=start + timedelta(hours=number * self.rng.uniform(1, 72)),
                    is_first=number == 0,
                )
                picks = self._answers(ability + 0.3 * number, language, done)
                pending.append((attempt, learner if signed_in else None, picks))
                if left_open is not None:
                    left_open.abandoned_at = attempt.started_at
                left_open = None if done else attempt
                made += 1
            # Flush between learners, so that each learner's account is made once.
            if len(pending) >= BATCH:
                answers += self._flush(pending)
                pending = []
        if pending:
            answers += self._flush(pending)
        return answers

    def _answers(
        self, ability: float, language: str, done: bool
    ) -> list[tuple[int, tuple[int, ...], Decimal, str]]:
        """(question id, picked choice ids, credit, response) for each answered question; an
        ordering question's answer is its items in order (right) or with the first two
        swapped, a matching question's each left item matched to its own right item (right)
        or to the next one's, a gaps question's each gap filled rightly or not (`_gaps`)."""
        answered = len(self.questions) if done else self.rng.randrange(len(self.questions))
        result = []
        for index, (question_id, choices) in enumerate(self.questions[:answered]):
            difficulty = self.difficulty[index]
            if index == self.french_harder and language == "fr":
                difficulty += 1.5
            if question_id in self.gapped:
                chances = [
                    self._chance(index, ability, difficulty + offset)
                    for offset in self.gap_difficulty[question_id]
                ]
                result.append((question_id, *self._gaps(question_id, chances, language)))
                continue
            right = self.rng.random() < self._chance(index, ability, difficulty)
            if question_id in self.orders:
                items = [pk for pk, _ok in choices]
                order = items if right else [*items[1::-1], *items[2:]]
                result.append((question_id, (), Decimal(right), ",".join(map(str, order))))
                continue
            if question_id in self.lefts:  # Each left item to its own, or each to the next's.
                lefts = self.lefts[question_id]
                given = lefts if right else [*lefts[1:], *lefts[:1]]
                pairs = ",".join(f"{left}:{pk}" for left, pk in zip(lefts, given, strict=True))
                result.append((question_id, (), Decimal(right), pairs))
                continue
            pool = [pk for pk, ok in choices if ok == right] or [pk for pk, _ok in choices]
            result.append((question_id, (self._drawn(pool),), Decimal(right), ""))
        return result

    def _chance(self, index: int, ability: float, difficulty: float) -> float:
        """The chance that a learner of this ability answers question `index` (or one of its
        gaps) of this difficulty rightly."""
        return 1 / (1 + math.exp(-self.sharpness[index] * (ability - difficulty)))

    def _drawn(self, pool: list):
        """One of these, the first drawing most and the last rarely (a realistic spread of
        wrong answers: the most tempting mistake, then the others)."""
        return self.rng.choices(pool, [0.6**rank for rank in range(len(pool))])[0]

    def _gaps(
        self, question_id: int, chances: list[float], language: str
    ) -> tuple[tuple[int, ...], Decimal, str]:
        """A gaps question's picks, credit and response: each gap filled rightly with its
        chance, else with one of its wrong answers (`_wrong_in_gap`); graded by the kind."""
        question = self.gapped[question_id]
        given = []
        for number, chance in enumerate(chances, 1):
            gap = sub_question(question, number)
            right = _right_in_gap(gap, language)
            wrong = _wrong_in_gap(gap, language, right[0])
            given.append(self._drawn(right if self.rng.random() < chance or not wrong else wrong))
        response = json.dumps(given, ensure_ascii=False)
        picked = frozenset(question.type.rematch(response, question.choices, language))
        credit = credit_of(question.type.grade(question, picked, response))
        return tuple(sorted(picked)), credit, response

    def _flush(self, pending: list[tuple[Attempt, int | None, list]]) -> int:
        user_model = get_user_model()
        numbers = sorted({learner for _a, learner, _answers in pending if learner is not None})
        created = user_model.objects.bulk_create(
            user_model(
                username=f"seed-{self.run}-{number}",
                first_name="Learner",
                last_name=f"{self.run}-{number}",
                password="!",
            )
            for number in numbers
        )
        users = dict(zip(numbers, created, strict=True))
        rows = []
        for attempt, learner, answers in pending:
            if learner is not None:
                attempt.user = users[learner]
            if len(answers) == len(self.questions):
                attempt.completed_at = attempt.started_at + timedelta(
                    minutes=self.rng.uniform(2, 20)
                )
                attempt.score = sum((credit for _q, _p, credit, _r in answers), Decimal(0))
                attempt.max_score = len(self.questions)
            rows.append(attempt)
        Attempt.objects.bulk_create(rows, batch_size=BATCH)
        answer_rows, picks = [], []
        for attempt, _learner, answers in pending:
            for step, (question_id, picked, credit, response) in enumerate(answers, 1):
                answer_rows.append(
                    Answer(
                        attempt_id=attempt.pk,
                        question_id=question_id,
                        choice_id=picked[0] if len(picked) == 1 else None,  # See Answer.choice.
                        response=response,
                        variant=(
                            calculated.variant_key(
                                self.drawing[question_id], attempt.public_id, question_id
                            )
                            if question_id in self.drawing
                            else ""
                        ),
                        credit=credit,
                        is_correct=credit == 1,
                        answered_at=attempt.started_at + timedelta(seconds=30 * step),
                    )
                )
                picks.append(picked)
        Answer.objects.bulk_create(answer_rows, batch_size=BATCH)
        AnswerChoice.objects.bulk_create(
            (
                AnswerChoice(answer_id=answer.pk, choice_id=choice_id)
                for answer, picked in zip(answer_rows, picks, strict=True)
                for choice_id in picked
            ),
            batch_size=BATCH,
        )
        return len(answer_rows)
