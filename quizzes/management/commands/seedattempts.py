import math
import random
import time
import uuid
from collections import defaultdict
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from quizzes.models import Answer, AnswerChoice, Attempt, Choice, Quiz

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
        began = time.monotonic()
        rng = random.Random(seed)
        with _recorded_dates(), transaction.atomic():
            answers = _Seeder(quiz, questions, rng, orders, lefts).seed(count)
        elapsed = time.monotonic() - began
        self.stdout.write(
            f"Seeded {count} completed attempts ({answers} answers) of {quiz.slug} "
            f"in {elapsed:.1f} s ({answers / elapsed:,.0f} answers/s)."
        )


class _Seeder:
    def __init__(
        self,
        quiz: Quiz,
        questions: list,
        rng: random.Random,
        orders: set[int],
        lefts: dict[int, list[int]],
    ):
        self.quiz = quiz
        self.questions = questions
        self.orders = orders  # The ordering questions: answered by an order, no pick.
        self.lefts = lefts  # The matching questions' left items: answered by pairs, no pick.
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
    ) -> list[tuple[int, int | None, bool, str]]:
        """(question id, choice id, right?, response) for each answered question; an ordering
        question's answer is its items in order (right) or with the first two swapped, a
        matching question's each left item matched to its own right item (right) or to the
        next one's."""
        answered = len(self.questions) if done else self.rng.randrange(len(self.questions))
        result = []
        for index, (question_id, choices) in enumerate(self.questions[:answered]):
            difficulty = self.difficulty[index]
            if index == self.french_harder and language == "fr":
                difficulty += 1.5
            logit = self.sharpness[index] * (ability - difficulty)
            right = self.rng.random() < 1 / (1 + math.exp(-logit))
            if question_id in self.orders:
                items = [pk for pk, _ok in choices]
                order = items if right else [*items[1::-1], *items[2:]]
                result.append((question_id, None, right, ",".join(map(str, order))))
                continue
            if question_id in self.lefts:  # Each left item to its own, or each to the next's.
                lefts = self.lefts[question_id]
                given = lefts if right else [*lefts[1:], *lefts[:1]]
                pairs = ",".join(f"{left}:{pk}" for left, pk in zip(lefts, given, strict=True))
                result.append((question_id, None, right, pairs))
                continue
            pool = [pk for pk, ok in choices if ok == right] or [pk for pk, _ok in choices]
            # The first wrong choice draws most; the last draws rarely.
            weights = [0.6**rank for rank in range(len(pool))]
            result.append((question_id, self.rng.choices(pool, weights)[0], right, ""))
        return result

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
                attempt.score = sum(right for _q, _c, right, _r in answers)
                attempt.max_score = len(self.questions)
            rows.append(attempt)
        Attempt.objects.bulk_create(rows, batch_size=BATCH)
        answer_rows, choices = [], []
        for attempt, _learner, answers in pending:
            for step, (question_id, choice_id, right, response) in enumerate(answers, 1):
                answer_rows.append(
                    Answer(
                        attempt_id=attempt.pk,
                        question_id=question_id,
                        choice_id=choice_id,
                        response=response,
                        credit=int(right),
                        is_correct=right,
                        answered_at=attempt.started_at + timedelta(seconds=30 * step),
                    )
                )
                choices.append(choice_id)
        Answer.objects.bulk_create(answer_rows, batch_size=BATCH)
        AnswerChoice.objects.bulk_create(
            (
                AnswerChoice(answer_id=answer.pk, choice_id=choice_id)
                for answer, choice_id in zip(answer_rows, choices, strict=True)
                if choice_id is not None
            ),
            batch_size=BATCH,
        )
        return len(answer_rows)
