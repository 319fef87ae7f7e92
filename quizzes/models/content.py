"""The content editors write: quizzes, their questions, choices and units, and images."""

from collections.abc import Collection

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import connections, models, transaction
from django.db.models import Case, IntegerField, Max, OuterRef, Q, Subquery, Sum, Value, When
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from modeltranslation.translator import translator
from modeltranslation.utils import build_localized_fieldname

from guides.models import GuidePath
from quizzes import kinds
from quizzes.markup.images import STORAGE_IMAGE_DIR
from quizzes.markup.rendering import plain_title


class Level(models.TextChoices):
    BEGINNER = "beginner", _("Beginner")
    INTERMEDIATE = "intermediate", _("Intermediate")
    ADVANCED = "advanced", _("Advanced")


def other_languages() -> list[str]:
    """The languages content is translated into from the default one."""
    return [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]


def translated_fields(model: type[models.Model]) -> tuple[str, ...]:
    """The model's translated fields, in the order the model declares them."""
    names = translator.get_options_for_model(model).all_fields
    return tuple(f.name for f in model._meta.get_fields() if f.name in names)


def _is_missing(obj: models.Model, field: str, language: str) -> bool:
    """True when the default language has a text for `field` and `language` has none."""
    default = getattr(obj, build_localized_fieldname(field, settings.LANGUAGE_CODE))
    return bool(default) and not getattr(obj, build_localized_fieldname(field, language))


def _missing_count(model: type[models.Model], language: str, prefix: str = ""):
    """SQL counting, over one row, the translated fields `language` lacks."""
    cases = []
    for field in translated_fields(model):
        default = prefix + build_localized_fieldname(field, settings.LANGUAGE_CODE)
        target = prefix + build_localized_fieldname(field, language)
        missing = Q(**{f"{default}__gt": ""}) & (
            Q(**{f"{target}__isnull": True}) | Q(**{target: ""})
        )
        cases.append(Case(When(missing, then=Value(1)), default=Value(0)))
    return sum(cases[1:], cases[0])


def _missing_sum(model: type[models.Model], to_quiz: str, language: str):
    """SQL summing `_missing_count` over the quiz's rows of `model`, reached by `to_quiz`."""
    rows = (
        model.objects.filter(**{to_quiz: OuterRef("pk")})
        .order_by()
        .values(to_quiz)
        .annotate(n=Sum(_missing_count(model, language)))
        .values("n")
    )
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


def content_place(question: int, choice: int | None = None) -> str:
    """Where something is in a quiz, numbered from 1 in order: "question 3, choice 2"."""
    if choice is None:
        return gettext("question %(number)s") % {"number": question}
    return gettext("question %(question)s, choice %(choice)s") % {
        "question": question,
        "choice": choice,
    }


class QuizQuerySet(models.QuerySet):
    """Every write moves the quizzes' `updated_at` on, as a save does: the learner pages key
    the content they keep on it (quizzes/snapshots.py)."""

    def published(self):
        return self.filter(is_published=True)

    def update(self, **kwargs) -> int:
        return super().update(**{"updated_at": timezone.now(), **kwargs})

    def bulk_update(self, objs, fields, batch_size=None) -> int:
        now = timezone.now()
        for quiz in objs:
            quiz.updated_at = now
        return super().bulk_update(objs, {*fields, "updated_at"}, batch_size=batch_size)

    def touch(self) -> int:
        """Move the stamp on: content of these quizzes was written."""
        return self.update()

    def with_missing_translations(self):
        """Annotate `missing_<language>`: translated fields of the quiz, its questions and
        choices that have a default-language text but none in that language."""
        annotations = {
            f"missing_{language}": _missing_count(Quiz, language)
            + _missing_sum(Question, "quiz", language)
            + _missing_sum(Choice, "question__quiz", language)
            for language in other_languages()
        }
        return self.annotate(**annotations)


class Quiz(models.Model):
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    title = models.CharField(_("title"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    level = models.CharField(_("level"), max_length=20, choices=Level, default=Level.BEGINNER)
    guide_paths = models.ManyToManyField(
        GuidePath, related_name="quizzes", blank=True, verbose_name=_("guide paths")
    )
    is_published = models.BooleanField(_("published"), default=False)
    pass_mark = models.PositiveSmallIntegerField(
        _("pass mark (%)"), default=70, validators=[MaxValueValidator(100)]
    )
    shuffle_choices = models.BooleanField(_("shuffle choices"), default=False)
    category = models.CharField(
        _("question bank category"),
        max_length=1000,
        blank=True,
        help_text=_(
            "The Moodle category its questions came from ($course$/top/Networks): "
            "importing a bank of that category again updates this quiz."
        ),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    objects = QuizQuerySet.as_manager()

    class Meta:
        ordering = ["title", "pk"]
        verbose_name = _("quiz")
        verbose_name_plural = _("quizzes")
        permissions = [("view_report", _("Can view score reports"))]
        constraints = [
            models.CheckConstraint(condition=Q(pass_mark__lte=100), name="quiz_pass_mark_percent"),
            models.UniqueConstraint(
                fields=["category"], condition=~Q(category=""), name="quiz_category_unique"
            ),
        ]

    def __str__(self) -> str:
        return plain_title(self.title) or self.slug

    def get_absolute_url(self) -> str:
        return reverse("quiz_detail", kwargs={"slug": self.slug})

    def missing_translations(self, language: str) -> list[str]:
        """Where `language` lacks a text the default language has: "question 2: explanation"."""
        places = [
            str(self._meta.get_field(field).verbose_name)
            for field in translated_fields(Quiz)
            if _is_missing(self, field, language)
        ]
        questions = self.questions.prefetch_related("choices")
        for number, question in enumerate(questions, 1):
            place = content_place(number)
            places += [
                f"{place}: {Question._meta.get_field(field).verbose_name}"
                for field in translated_fields(Question)
                if _is_missing(question, field, language)
            ]
            for choice_number, choice in enumerate(question.choices.all(), 1):
                choice_place = content_place(number, choice_number)
                places += [
                    f"{choice_place}: {Choice._meta.get_field(field).verbose_name}"
                    for field in translated_fields(Choice)
                    if _is_missing(choice, field, language)
                ]
        return places

    def publish_problems(self) -> list[str]:
        """Why this quiz, as saved, can't be published; empty when it can."""
        if self.pk is None:
            return [gettext("Add at least one question before publishing.")]
        questions = list(self.questions.prefetch_related("choices"))
        if not questions:
            return [gettext("Add at least one question before publishing.")]
        return [
            f"{content_place(number)}: {problem}"
            for number, question in enumerate(questions, 1)
            for problem in question.choice_problems()
        ]


class _QuizContentQuerySet(models.QuerySet):
    """Writes of questions or choices that send no signal move their quizzes' stamps too."""

    quiz_lookup: str  # From a row to its quiz's id.

    def _quiz_ids(self) -> set[int]:
        return set(self.values_list(self.quiz_lookup, flat=True))

    def _quiz_ids_of(self, objs) -> set[int]:
        raise NotImplementedError

    def _touch(self, quiz_ids: set[int]) -> None:
        Quiz.objects.using(self.db).filter(pk__in=quiz_ids).touch()

    def update(self, **kwargs) -> int:
        with transaction.atomic(using=self.db):
            before = self._quiz_ids()
            updated = super().update(**kwargs)
            self._touch(before | self._quiz_ids())
        return updated

    def bulk_create(self, objs, *args, **kwargs):
        with transaction.atomic(using=self.db):
            created = super().bulk_create(objs, *args, **kwargs)
            self._touch(self._quiz_ids_of(created))
        return created

    def bulk_update(self, objs, *args, **kwargs) -> int:
        objs = list(objs)
        with transaction.atomic(using=self.db):
            before = self.filter(pk__in=[obj.pk for obj in objs])._quiz_ids()
            updated = super().bulk_update(objs, *args, **kwargs)
            self._touch(before | self._quiz_ids_of(objs))
        return updated

    def rows_update(self, objs, fields) -> None:
        """Write these `fields` of `objs` (plain values, no expressions), each under its own
        column (`prompt_fr`: a translation's name is never rewritten for the active
        language, as `update` and `bulk_update` do): one UPDATE statement sent with every
        row's values (executemany). bulk_update's CASE over a batch costs Python about 1 ms
        a row to build and the database the square of the batch to run."""
        objs = list(objs)
        if not objs:
            return
        connection = connections[self.db]
        meta = self.model._meta
        columns = [meta.get_field(name) for name in fields]
        quote = connection.ops.quote_name
        sets = ", ".join(f"{quote(column.column)} = %s" for column in columns)
        sql = f"UPDATE {quote(meta.db_table)} SET {sets} WHERE {quote(meta.pk.column)} = %s"
        rows = [
            [
                *(
                    column.get_db_prep_save(getattr(obj, column.attname), connection)
                    for column in columns
                ),
                obj.pk,
            ]
            for obj in objs
        ]
        with transaction.atomic(using=self.db):
            before = self.filter(pk__in=[obj.pk for obj in objs])._quiz_ids()
            with connection.cursor() as cursor:
                cursor.executemany(sql, rows)
            self._touch(before | self._quiz_ids_of(objs))


class QuestionQuerySet(_QuizContentQuerySet):
    quiz_lookup = "quiz_id"

    def next_position(self) -> int:
        """The position after the last of these questions (a quiz's: `quiz.questions`)."""
        return (self.aggregate(last=Max("position"))["last"] or 0) + 1

    def _quiz_ids_of(self, objs) -> set[int]:
        return {question.quiz_id for question in objs}


class ChoiceQuerySet(_QuizContentQuerySet):
    """A question's choices, or its units (UnitQuerySet): rows of a question."""

    quiz_lookup = "question__quiz_id"

    def _quiz_ids_of(self, objs) -> set[int]:
        questions = Question.objects.using(self.db).filter(pk__in={c.question_id for c in objs})
        return set(questions.values_list("quiz_id", flat=True))


class UnitQuerySet(ChoiceQuerySet):
    pass


class _Ordered(models.Model):
    """A question in its quiz or a choice in its question: shown in the order of `position`,
    which is unique in its parent (`unique_position_in`)."""

    position = models.PositiveIntegerField(_("position"))

    class Meta:
        abstract = True
        ordering = ["position", "pk"]

    @staticmethod
    def unique_position_in(parent: str, name: str) -> models.UniqueConstraint:
        return models.UniqueConstraint(fields=[parent, "position"], name=name)


QUESTION_KEY_LENGTH = 100


def question_key(text: str, taken: Collection[str], numbers: dict[str, int] | None = None) -> str:
    """A key for a question, unlike the `taken` keys of its quiz, from `text` (a Moodle ID
    number or name, or its prompt's plain title): "… (2)" when taken. `numbers` keeps the
    last number tried after each text, so that thousands of questions of one prompt don't
    try the same numbers again each time."""
    base = " ".join(text.split())[:QUESTION_KEY_LENGTH] or "question"
    numbers = {} if numbers is None else numbers
    key, number = base, numbers.get(base, 1)
    if number > 1:
        key = _numbered(base, number)
    while key in taken:
        number += 1
        key = _numbered(base, number)
    numbers[base] = number
    return key


def _numbered(base: str, number: int) -> str:
    suffix = f" ({number})"
    return base[: QUESTION_KEY_LENGTH - len(suffix)] + suffix


class Question(_Ordered):
    quiz = models.ForeignKey(
        Quiz, on_delete=models.CASCADE, related_name="questions", verbose_name=_("quiz")
    )
    key = models.CharField(
        _("key"),
        max_length=QUESTION_KEY_LENGTH,
        help_text=_(
            "Names the question across imports and exports, unique in its quiz: Moodle's "
            "ID number or name, else the start of its prompt. Made when left empty."
        ),
    )
    name = models.CharField(
        _("name in the question bank"),
        max_length=255,
        blank=True,
        help_text=_("Moodle's name for the question; learners never see it."),
    )
    prompt = models.TextField(_("prompt"))
    explanation = models.TextField(_("explanation"), blank=True)
    guide_url = models.URLField(
        _("guide section URL"),
        blank=True,
        help_text=_("The section of the guide that teaches this, shown with the explanation."),
    )
    kind = models.CharField(_("kind"), max_length=20, choices=kinds.choices, default=kinds.DEFAULT)
    keep_choice_order = models.BooleanField(
        _("keep the choices in order"),
        default=False,
        help_text=_(
            "Shown in their order even when the quiz shuffles choices: for choices that "
            "refer to each other (“all of the above”, “none of these”) or ordered numbers."
        ),
    )
    grading = models.CharField(
        _("grading"),
        max_length=10,
        choices=kinds.Grading.choices,
        default=kinds.Grading.ALL,
        help_text=_(
            "Ordering questions: full marks only for the whole order right, or a share for "
            "each item followed by the right one (Moodle’s “relative to the next item”)."
        ),
    )
    # How a short-answer question compares a typed answer with its accepted answers.
    case_sensitive = models.BooleanField(
        _("case sensitive"),
        default=False,
        help_text=_("Short answers: “GPU” and “gpu” are different answers."),
    )
    ignore_accents = models.BooleanField(
        _("ignore accents"),
        default=False,
        help_text=_("Short answers: “élève” and “eleve” are the same answer."),
    )
    partial_credit = models.BooleanField(
        _("partial credit"),
        default=False,
        help_text=_(
            "Multiple choice: each correct choice ticked earns its share of the mark and each "
            "wrong one ticked takes a share away, never below 0. Unticked: right only when "
            "exactly the correct choices are ticked."
        ),
    )
    # A calculated question's variables, each drawn per attempt: a list of {name, min, max,
    # step} or {name, values}, numbers as plain decimals ("0.5"); checked by the kind.
    variables = models.JSONField(
        _("variables"),
        default=list,
        blank=True,
        help_text=_(
            "Calculated questions: each variable a range, "
            '{"name": "workers", "min": 2, "max": 16, "step": 2}, or a set, '
            '{"name": "local_batch", "values": [16, 32, 64]}; the prompt shows {workers}.'
        ),
    )
    # A gaps question's gaps, [[1]], [[2]]… in its prompt: the kind of each, in order
    # ("single", "short_answer" or "numerical"); checked by the kind.
    gaps = models.JSONField(
        _("gaps"),
        default=list,
        blank=True,
        help_text=_(
            "Gaps questions: the kind of each gap [[1]], [[2]]… of the prompt, in order: "
            '["single", "short_answer", "numerical"] (a choice to pick, a text, a number).'
        ),
    )
    # A numerical question's units (Unit): whether an answer must give one, and on which
    # side of the number they are written (Moodle's unitsleft: "$ 5").
    units_required = models.BooleanField(
        _("units required"),
        default=False,
        help_text=_(
            "Numerical questions with units: an answer without a unit is refused, with a "
            "message (else a number alone is in the base unit)."
        ),
    )
    units_left = models.BooleanField(
        _("units before the number"),
        default=False,
        help_text=_("Numerical questions with units: shown as “$ 5” rather than “5 $”."),
    )

    objects = QuestionQuerySet.as_manager()

    class Meta(_Ordered.Meta):
        verbose_name = _("question")
        verbose_name_plural = _("questions")
        constraints = [
            _Ordered.unique_position_in("quiz", "question_position_unique_in_quiz"),
            models.UniqueConstraint(fields=["quiz", "key"], name="question_key_unique_in_quiz"),
        ]

    def __str__(self) -> str:
        return plain_title(self.prompt) or content_place(self.position)

    def save(self, *args, **kwargs) -> None:
        if not self.key:
            others = Question.objects.filter(quiz_id=self.quiz_id).exclude(pk=self.pk)
            prompt = getattr(self, build_localized_fieldname("prompt", settings.LANGUAGE_CODE))
            taken = set(others.values_list("key", flat=True))
            self.key = question_key(plain_title(prompt or self.prompt or ""), taken)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return self.quiz.get_absolute_url()

    @property
    def type(self) -> kinds.Kind:
        return kinds.get(self.kind).for_question(self)

    def choice_problems(self) -> list[str]:
        choices = self.choices.all()
        edited = [edited_choice(vars(choice)) for choice in choices]
        return [
            *self.type.problems([choice.is_correct for choice in choices]),
            *self.type.value_problems(edited),
            *self.type.variable_problems(self.variables, edited),
            *self.type.gap_problems(self.gaps, prompts_of(vars(self)), edited),
        ]


def prompts_of(columns: dict) -> dict[str, str]:
    """A question's prompt in each language ({language: text}), from its columns."""
    return {
        code: columns.get(build_localized_fieldname("prompt", code)) or ""
        for code, _name in settings.LANGUAGES
    }


def edited_choice(columns: dict) -> kinds.EditedChoice:
    """A choice as `Kind.value_problems` sees it, from its columns ("text_en", "tolerance"…),
    as a model, a form or a quiz file has them."""
    return kinds.EditedChoice(
        texts={
            code: columns.get(build_localized_fieldname("text", code)) or ""
            for code, _name in settings.LANGUAGES
        },
        tolerance=columns.get("tolerance"),
        matches={
            code: columns.get(build_localized_fieldname("match", code)) or ""
            for code, _name in settings.LANGUAGES
        },
        correct=bool(columns.get("is_correct")),
        gap=columns.get("gap") or 0,
    )


class Choice(_Ordered):
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="choices", verbose_name=_("question")
    )
    text = models.CharField(_("text"), max_length=500)
    is_correct = models.BooleanField(_("correct"), default=False)
    feedback = models.TextField(
        _("feedback"), blank=True, help_text=_("Shown to a learner who picked this choice.")
    )
    # A matching question's choice is a pair: its text the left item, this the right one.
    match = models.CharField(
        _("right item"),
        max_length=500,
        blank=True,
        help_text=_(
            "Matching questions: the right item this choice's text matches (plain text). "
            "With no text, a distractor: a right item that matches nothing."
        ),
    )
    # A gaps question's choice belongs to one of its gaps, numbered from 1.
    gap = models.PositiveSmallIntegerField(
        _("gap"),
        default=0,
        help_text=_("Gaps questions: the gap [[1]], [[2]]… this choice belongs to."),
    )
    # A numerical question's choice is a value (its text, a number) give or take this much.
    tolerance = models.DecimalField(
        _("tolerance"),
        max_digits=30,
        decimal_places=15,
        default=0,
        help_text=_("Numerical questions: an answer this far from the value matches it."),
    )
    relative_tolerance = models.BooleanField(
        _("tolerance in %"),
        default=False,
        help_text=_("The tolerance is a percentage of the value: 1 for 1 %."),
    )
    # The share of the marks an answer matching a not-correct choice earns: a near miss.
    credit = models.DecimalField(
        _("credit"),
        max_digits=6,
        decimal_places=5,
        default=0,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text=_("A wrong answer's share of the marks, from 0 to 1 (0.5: half)."),
    )

    objects = ChoiceQuerySet.as_manager()

    class Meta(_Ordered.Meta):
        verbose_name = _("choice")
        verbose_name_plural = _("choices")
        constraints = [
            _Ordered.unique_position_in("question", "choice_position_unique_in_question"),
            models.CheckConstraint(
                condition=Q(credit__gte=0, credit__lte=1), name="choice_credit_a_share"
            ),
        ]

    def __str__(self) -> str:
        return plain_title(self.text) or gettext("choice %(number)s") % {"number": self.position}


UNIT_NAME_LENGTH = 30


class Unit(_Ordered):
    """A unit a numerical question's answer may be given in (Moodle's numerical units): a
    number in this unit is a number in the base unit (the first whose multiplier is 1, the
    unit of the values) times `multiplier`, as Moodle keeps it ("GB", 0.0009765625, of a
    base "MB")."""

    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="units", verbose_name=_("question")
    )
    name = models.CharField(
        _("unit"), max_length=UNIT_NAME_LENGTH, help_text=_("As learners type it: MB, ms.")
    )
    multiplier = models.DecimalField(
        _("multiplier"),
        max_digits=30,
        decimal_places=15,
        default=1,
        help_text=_(
            "How many of this unit make one base unit (the first unit of multiplier 1): "
            "for GB of a base MB, 0.0009765625 (1/1024) or 0.001."
        ),
    )

    objects = UnitQuerySet.as_manager()

    class Meta(_Ordered.Meta):
        verbose_name = _("unit")
        verbose_name_plural = _("units")
        constraints = [
            _Ordered.unique_position_in("question", "unit_position_unique_in_question"),
            models.UniqueConstraint(
                fields=["question", "name"],
                name="unit_name_unique",
                violation_error_message=_("A question has each unit once."),
            ),
            models.CheckConstraint(
                condition=Q(multiplier__gt=0),
                name="unit_multiplier_above_0",
                violation_error_message=_("A unit's multiplier is above 0."),
            ),
        ]

    def __str__(self) -> str:
        return self.name


class ContentImage(models.Model):
    """An image editors upload to use in quiz texts (quizzes/markup/images.py says how).

    The alt texts here only fill in the Markdown reference the admin offers for pasting: a
    text's own `![alt](…)` is what learners get, in that text's language.
    """

    file = models.FileField(_("image"), upload_to=STORAGE_IMAGE_DIR, max_length=200, unique=True)
    alt = models.CharField(
        _("alt text"),
        max_length=300,
        help_text=_("What the image shows, for people who can't see it."),
    )
    uploaded_at = models.DateTimeField(_("uploaded"), auto_now_add=True)

    class Meta:
        verbose_name = _("content image")
        verbose_name_plural = _("content images")
        ordering = ["-uploaded_at"]

    def __str__(self) -> str:
        return self.alt or self.file.name
