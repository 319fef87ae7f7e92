"""A quiz with its questions, choices and guide paths, kept read-only in each web process.

Every learner page shows the same quiz, questions and choices, which change only when an
editor writes them. They are kept per process under the quiz's stamp (`Quiz.updated_at`),
which the page reads anyway (with the attempt, or alone), so a page never shows content older
than the row it has just read, in any process, without the processes telling each other
anything. Every way our code writes content moves that stamp on:

- a save or delete of a question, choice or guide path, and a change of a quiz's guide
  paths: the receivers below, connected in `QuizzesConfig.ready`;
- querysets' `update`, `bulk_create` and `bulk_update` of quizzes, questions, choices and
  guide paths: their QuerySet classes (quizzes/models/content.py, and `guides.signals` for guides);
- data migrations, which use historical models without our querysets: every `migrate` ends
  by moving all the stamps (`content_migrated`).

What requests share is read-only: frozen dataclasses and tuples, never model instances, so
no request can change what another one sees. At most `QUIZ_CONTENT_CACHE_SIZE` quizzes are
kept per process, the least recently used going first.
"""

import operator
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from functools import lru_cache, reduce

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import connections
from django.db.models import Model, QuerySet, Sum, Value, prefetch_related_objects
from django.db.models.functions import Coalesce, Length, NullIf
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext
from modeltranslation.utils import build_localized_fieldname, resolution_order

from guides.models import GuidePath
from quizzes import kinds
from quizzes.kinds import calculated, gaps
from quizzes.kinds.numerical import Numerical
from quizzes.markup import rendering as markup
from quizzes.markup.images import name_of_url
from quizzes.models import Attempt, Choice, Level, Question, Quiz, Unit, translated_fields

# How each translated field shows: inside a <label> (phrasing content only), or as blocks of
# its own. Titles and URLs aren't Markdown: they show as written. A prompt is blocks (code,
# lists, maths) that label its question's fieldset; where a prompt is named rather than shown
# (a link to its review, a report's heading) its heading, the first line, stands for it.
INLINE_FIELDS = frozenset({"text"})
BLOCK_FIELDS = frozenset({"description", "explanation", "feedback", "prompt", "summary"})


def field_markup(field: str) -> str | None:
    """How a translated field renders: "inline", "block", or None for plain text."""
    if field in INLINE_FIELDS:
        return "inline"
    if field in BLOCK_FIELDS:
        return "block"
    return None


def text_problems(
    *,
    field: str,
    language: str,
    source: str,
    image_exists: Callable[[str], bool] | None = None,
    render: bool = True,
) -> list[str]:
    """What an editor must fix in one language of a Markdown field, each message naming both
    ("prompt (fr): …") so the admin and the importer say where; plain-text fields have none.

    An image needs alt text (in the text's language, since each language has its own `![…]`)
    and must be one uploaded to the site: `image_exists` says which are, the storage by default
    (the importer also knows the images of its `.zip`). `render=False` looks up its images
    only, for a text whose rendering was checked already (the admin's confirm of an import,
    whose preview checked the same file): rendering is most of the time a large import takes.
    """
    kind = field_markup(field)
    if kind is None or not source:
        return []
    inline = kind == "inline"
    found = markup.problems(source, inline=inline) if render else []
    exists = image_exists or default_storage.exists
    for src, alt in markup.images(source, inline=inline):
        name = name_of_url(src)
        if name is None or not exists(name):
            found.append(
                gettext(
                    "The image “%(src)s” is not one uploaded to this site: upload it under "
                    "Content images and paste the reference shown there."
                )
                % {"src": src}
            )
        elif not alt:
            found.append(
                gettext(
                    "The image “%(src)s” has no alt text: write what it shows between the "
                    "brackets, ![like this](…)."
                )
                % {"src": src}
            )
    return [f"{field} ({language}): {problem}" for problem in found]


def markdown_lengths(model: type[Model], values: Mapping[str, object]) -> Counter[str]:
    """Per language, the characters of Markdown a page in that language shows of one row's
    texts, `values` by column ("prompt_en", "prompt_fr"…): a text missing in a language shows
    in the default language's."""
    lengths: Counter[str] = Counter()
    for field in _markdown_fields(model):
        default = values.get(build_localized_fieldname(field, settings.LANGUAGE_CODE)) or ""
        for code, _name in settings.LANGUAGES:
            text = values.get(build_localized_fieldname(field, code)) or default
            lengths[code] += len(str(text))
    return lengths


def saved_markdown_lengths(queryset: QuerySet) -> Counter[str]:
    """`markdown_lengths` summed over the rows of `queryset`, by the database."""
    fields = _markdown_fields(queryset.model)
    default = settings.LANGUAGE_CODE
    sums = {
        code: Sum(
            reduce(
                operator.add,
                (
                    Length(
                        Coalesce(
                            NullIf(build_localized_fieldname(field, code), Value("")),
                            build_localized_fieldname(field, default),
                        )
                    )
                    for field in fields
                ),
            )
        )
        for code, _name in settings.LANGUAGES
    }
    return Counter({code: total or 0 for code, total in queryset.aggregate(**sums).items()})


def quiz_length_problems(lengths: Counter[str]) -> list[str]:
    """Why a quiz whose texts have these `markdown_lengths` can't be saved: its pages, which
    show all its texts, would render past `rendering.MAX_QUIZ_SOURCE_LENGTH`."""
    names = dict(settings.LANGUAGES)
    return [
        gettext(
            "%(language)s: this quiz's texts would hold %(length)s characters together; "
            "a quiz's pages show %(limit)s at most. Move some questions to another quiz."
        )
        % {
            "language": str(names[code]),
            "length": number_format(length, force_grouping=True),
            "limit": number_format(markup.MAX_QUIZ_SOURCE_LENGTH, force_grouping=True),
        }
        for code, length in lengths.items()
        if length > markup.MAX_QUIZ_SOURCE_LENGTH
    ]


def _markdown_fields(model: type[Model]) -> list[str]:
    return [field for field in translated_fields(model) if field_markup(field) is not None]


def fallback_tag(language: str) -> SafeString:
    """The visible "in English" after a text shown in a fallback language.

    Sighted readers of a French page learn why a text is in English; the tag itself is in the
    page's language, so a screen reader switches back to French for it.
    """
    names = {"en": gettext("in English"), "fr": gettext("in French")}
    name = names.get(language) or language
    return format_html(
        ' <span class="fallback-tag" lang="{}">{}</span>', get_language() or "", name
    )


@dataclass(frozen=True)
class Text:
    """A translated text, shown in the active language or the first fallback that has it.

    `render_as` says how it renders: "inline", "block", "heading" (a block text's first line,
    `rendering.title`) or None for plain text, which is escaped. Each language is rendered the
    first time a page shows it, then kept with the text (so once per content change, process
    and language): a question's page renders its own texts, not the whole quiz's.
    """

    by_language: tuple[tuple[str, str], ...]
    render_as: str | None = None

    def __post_init__(self) -> None:
        # Not a field: what it keeps follows from the fields, and rendering it twice at once
        # in two threads gives the same HTML.
        object.__setattr__(self, "_rendered", {})

    @classmethod
    def of(cls, obj: Model, field: str) -> "Text":
        return cls(_by_language(obj, field), field_markup(field))

    @classmethod
    def heading_of(cls, obj: Model, field: str) -> "Text":
        """A block field's first line, as phrasing content (`rendering.title`)."""
        return cls(_by_language(obj, field), "heading")

    def rendered_in(self, code: str) -> markup.Rendered | None:
        """The text in language `code` as HTML, or None for plain text or no text."""
        text = dict(self.by_language).get(code)
        if self.render_as is None or not text:
            return None
        kept = self._rendered.get(code)
        if kept is None:
            if self.render_as == "heading":
                kept = markup.title(text, language=code)
            elif self.render_as == "gaps":
                kept = gaps.blanks(markup.render(text, language=code))
            else:
                kept = markup.render(text, language=code, inline=self.render_as == "inline")
            self._rendered[code] = kept
        return kept

    def html_by_language(self) -> tuple[tuple[str, str], ...]:
        """Each language's HTML (rendering those not rendered yet)."""
        return tuple(
            (code, rendered.html)
            for code, _text in self.by_language
            if (rendered := self.rendered_in(code)) is not None
        )

    def _shown(self) -> tuple[str, str]:
        """(language, text) in the active language, or the fallback that has a text."""
        texts = dict(self.by_language)
        current = get_language() or settings.LANGUAGE_CODE
        for code in resolution_order(current):
            if texts.get(code):
                return code, texts[code]
        return current, ""

    def drawn(self, values: Mapping[str, Decimal]) -> "Text":
        """The text with each {name} of these drawn values written as its language writes
        the number (`calculated.substitute`), its HTML made of this text's, not rendered
        again."""
        text = Text(
            tuple(
                (code, calculated.substitute(text, values, code)) for code, text in self.by_language
            ),
            self.render_as,
        )
        for code, _text in self.by_language:
            rendered = self.rendered_in(code)
            if rendered is not None:
                html = calculated.substitute(rendered.html, values, code)
                text._rendered[code] = markup.Rendered(html=html, language=rendered.language)
        return text

    def __str__(self) -> str:
        return self._shown()[1]

    @property
    def language(self) -> str:
        """The language the text is shown in: the active one, or its fallback."""
        return self._shown()[0]

    def __bool__(self) -> bool:
        return bool(self._shown()[1])

    @property
    def lang_attr(self) -> str:
        """` lang="en"` when the text is shown in a fallback language, else nothing."""
        code, _text = self._shown()
        return "" if code == get_language() else format_html(' lang="{}"', code)

    @property
    def html(self) -> SafeString:
        """The shown text as HTML, with a visible tag when it is in a fallback language."""
        code, text = self._shown()
        html = self.rendered_in(code)
        body = mark_safe(html.html) if html is not None else conditional_escape(text)
        if text and code != get_language():
            return body + fallback_tag(code)
        return body


def _by_language(obj: Model, field: str) -> tuple[tuple[str, str], ...]:
    return tuple(
        (code, getattr(obj, build_localized_fieldname(field, code)) or "")
        for code, _name in settings.LANGUAGES
    )


def _texts(obj: Model) -> dict[str, Text]:
    return {field: Text.of(obj, field) for field in translated_fields(type(obj))}


@dataclass(frozen=True)
class ChoiceContent:
    pk: int
    question_id: int
    position: int
    is_correct: bool
    tolerance: Decimal  # A numerical question's value is its text, give or take this.
    relative_tolerance: bool  # The tolerance is a percentage of the value.
    credit: Decimal  # The share of the marks a not-correct choice earns (a near miss).
    text: Text
    feedback: Text
    match: Text = Text(())  # A matching question's right item (plain text).
    gap: int = 0  # A gaps question's gap it belongs to, from 1.


@dataclass(frozen=True)
class UnitContent:
    name: str
    multiplier: Decimal  # A number in this unit is one in the base unit times this.


@dataclass(frozen=True)
class QuestionContent:
    pk: int
    quiz_id: int
    position: int
    kind: str
    keep_choice_order: bool
    prompt: Text
    explanation: Text
    guide_url: Text
    heading: Text  # The prompt's first line, where the question is named.
    choices: tuple[ChoiceContent, ...]  # In order.
    grading: str = kinds.Grading.ALL  # An ordering question's (Question.grading).
    case_sensitive: bool = False  # A short answer's options (Question.case_sensitive…).
    ignore_accents: bool = False
    partial_credit: bool = False  # Multiple choice: each pick earns or costs a share.
    # A calculated question's variables; once drawn for an attempt (`drawn`), their values.
    variables: tuple[calculated.Variable, ...] = ()
    values: tuple[tuple[str, Decimal], ...] = ()
    units: tuple["UnitContent", ...] = ()  # A numerical question's, in order.
    units_required: bool = False
    units_left: bool = False
    gaps: tuple[str, ...] = ()  # A gaps question's: the kind of each gap, in order.

    @property
    def type(self) -> kinds.Kind:
        return kinds.get(self.kind).for_question(self)


@dataclass(frozen=True)
class GuidePathContent:
    pk: int
    slug: str
    title: Text

    def get_absolute_url(self) -> str:
        return reverse("guide_detail", kwargs={"slug": self.slug})


@dataclass(frozen=True)
class QuizContent:
    pk: int
    slug: str
    updated_at: datetime  # The stamp this content was read under.
    level: str
    pass_mark: int
    shuffle_choices: bool
    is_published: bool
    title: Text
    description: Text
    questions: tuple[QuestionContent, ...]  # In order.
    guide_paths: tuple[GuidePathContent, ...]  # The published ones, in order.

    def get_absolute_url(self) -> str:
        return reverse("quiz_detail", kwargs={"slug": self.slug})

    def get_level_display(self) -> str:
        return Level(self.level).label

    def questions_among(self, ids: list[int] | None) -> tuple[QuestionContent, ...]:
        """The questions with these ids (all for None), in the quiz's order: an attempt's."""
        if ids is None:
            return self.questions
        wanted = set(ids)
        return tuple(question for question in self.questions if question.pk in wanted)


def choices_as_shown(
    quiz: QuizContent, question: QuestionContent, attempt: Attempt
) -> tuple[ChoiceContent, ...]:
    """The question's choices as `attempt` shows them on every page (the question, its
    feedback, the results' review, an instructor's review of it), so that they stay put on
    reload, resume and review: shuffled by the attempt's id if the quiz shuffles, unless the
    question or its kind keeps them in order. A practice or a retry, a new attempt, gets a
    new order. An ordering's items are always shuffled, and never shown in their right order
    (that order turned by one instead)."""
    kind = question.type
    if kind.shuffles_always:
        shown = tuple(sorted(question.choices, key=attempt.choice_order_key))
        return shown[1:] + shown[:1] if shown == question.choices else shown
    if not quiz.shuffle_choices or question.keep_choice_order or kind.keeps_choice_order:
        return question.choices
    return tuple(sorted(question.choices, key=attempt.choice_order_key))


def drawn(question: QuestionContent, attempt: Attempt) -> QuestionContent:
    """The question as `attempt` shows it on every page (the question, its feedback, the
    results' review, an instructor's review): a calculated question with the values the
    attempt drew (`calculated.draw`, from its public id and the question's id), shown in
    its texts, and each choice's text the value of its formula for them, so that it is
    answered and graded as a numerical question. Any other question as it is."""
    if not question.type.has_variables:
        return question
    return _drawn(question, calculated.seed_of(attempt.public_id, question.pk))


@lru_cache(maxsize=4096)  # A reload, the feedback, the results: the same question drawn again.
def _drawn(question: QuestionContent, seed: str) -> QuestionContent:
    values, results = calculated.drawn_values(question.variables, question.choices, seed)
    choices = tuple(
        replace(
            choice,
            text=_number_text(results[choice.pk], choice.text),
            feedback=choice.feedback.drawn(values),
        )
        for choice in question.choices
    )
    return replace(
        question,
        prompt=question.prompt.drawn(values),
        explanation=question.explanation.drawn(values),
        heading=question.heading.drawn(values),
        choices=choices,
        values=tuple(values.items()),
    )


def _number_text(value: Decimal | None, formula: Text) -> Text:
    """A drawn choice's text: its formula's value in each language the formula is written
    in, as the numerical kind reads it ("1024"), or none where the formula fails."""
    shown = "" if value is None else calculated.plain(value)
    return Text(tuple((code, shown if text else "") for code, text in formula.by_language))


def _question_texts(question: Question) -> dict:
    """A question's texts and heading; a gaps question's prompt with each gap [[n]] shown
    as a numbered blank (the learner's form puts its input there), its heading with "…"
    for each gap, and its gaps' kinds."""
    texts = {**_texts(question), "heading": Text.heading_of(question, "prompt")}
    if not question.type.fills_prompt:
        return texts
    prompt = texts["prompt"].by_language
    return {
        **texts,
        "prompt": Text(prompt, "gaps"),
        "heading": Text(tuple((code, gaps.GAP.sub("…", text)) for code, text in prompt), "heading"),
        "gaps": tuple(question.gaps),
    }


def _columns(obj: Model, *names: str) -> dict:
    return {name: getattr(obj, name) for name in names}


def _read(quiz_id: int) -> QuizContent:
    quiz = Quiz.objects.get(pk=quiz_id)
    questions = list(Question.objects.filter(quiz=quiz).prefetch_related("choices"))
    # Only numerical questions have units: a quiz without one reads none.
    with_units = [question for question in questions if question.kind == Numerical.name]
    prefetch_related_objects(with_units, "units")
    quiz_columns = ("pk", "slug", "updated_at", "level", "pass_mark", "shuffle_choices")
    return QuizContent(
        **_columns(quiz, *quiz_columns, "is_published"),
        **_texts(quiz),
        questions=tuple(
            QuestionContent(
                **_columns(
                    question,
                    "pk",
                    "quiz_id",
                    "position",
                    "kind",
                    "keep_choice_order",
                    "grading",
                    "case_sensitive",
                    "ignore_accents",
                    "partial_credit",
                    "units_required",
                    "units_left",
                ),
                units=tuple(
                    UnitContent(**_columns(unit, "name", "multiplier"))
                    for unit in (question.units.all() if question.kind == Numerical.name else ())
                ),
                **_question_texts(question),
                variables=calculated.parse_variables(question.variables)[0]
                if question.type.has_variables
                else (),
                choices=tuple(
                    ChoiceContent(
                        **_columns(
                            choice,
                            "pk",
                            "question_id",
                            "position",
                            "is_correct",
                            "tolerance",
                            "relative_tolerance",
                            "credit",
                            "gap",
                        ),
                        **_texts(choice),
                    )
                    for choice in question.choices.all()
                ),
            )
            for question in questions
        ),
        guide_paths=tuple(
            GuidePathContent(**_columns(guide, "pk", "slug"), title=Text.of(guide, "title"))
            for guide in quiz.guide_paths.published()
        ),
    )


class _ContentCache:
    """The newest content seen of each quiz, for the most recently used quizzes."""

    def __init__(self):
        self._by_quiz: OrderedDict[int, QuizContent] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, quiz_id: int, updated_at: datetime) -> QuizContent:
        with self._lock:
            content = self._by_quiz.get(quiz_id)
            if content is not None and content.updated_at == updated_at:
                self._by_quiz.move_to_end(quiz_id)
                return content
        content = _read(quiz_id)  # Outside the lock: a query must not hold up other threads.
        with self._lock:
            self._by_quiz[quiz_id] = content
            self._by_quiz.move_to_end(quiz_id)
            while len(self._by_quiz) > settings.QUIZ_CONTENT_CACHE_SIZE:
                self._by_quiz.popitem(last=False)
        return content

    def __len__(self) -> int:
        return len(self._by_quiz)

    def clear(self) -> None:
        with self._lock:
            self._by_quiz.clear()


cache = _ContentCache()


def quiz_content(*, quiz_id: int, updated_at: datetime) -> QuizContent:
    """The quiz's content as of the stamp `updated_at`, which the caller has just read."""
    return cache.get(quiz_id, updated_at)


# Receivers: every write of content moves the stamps of the quizzes it shows in.


def question_changed(sender, instance: Question, **kwargs) -> None:
    Quiz.objects.filter(pk=instance.quiz_id).touch()


def choice_changed(sender, instance: Choice | Unit, **kwargs) -> None:
    Quiz.objects.filter(questions=instance.question_id).touch()


def guide_path_changed(sender, instance: GuidePath, **kwargs) -> None:
    """Saved, or about to be deleted (while its links to quizzes still exist)."""
    Quiz.objects.filter(guide_paths=instance).touch()


def guide_paths_written(sender, pks: list[int], **kwargs) -> None:
    """Guide paths written by a queryset (`guides.signals.guide_paths_written`)."""
    Quiz.objects.filter(guide_paths__in=pks).touch()


def guide_paths_relinked(sender, instance, action: str, reverse: bool, pk_set, **kwargs) -> None:
    """A quiz's guide paths changed, from either side of the relation."""
    if action not in ("post_add", "post_remove", "pre_clear"):
        return
    if not reverse:  # quiz.guide_paths.add(...)
        Quiz.objects.filter(pk=instance.pk).touch()
    elif action == "pre_clear":  # guide_path.quizzes.clear()
        Quiz.objects.filter(guide_paths=instance).touch()
    else:  # guide_path.quizzes.add(quiz, ...)
        Quiz.objects.filter(pk__in=pk_set).touch()


def content_migrated(sender, using: str, **kwargs) -> None:
    """After `migrate`: a data migration may have written content with historical models."""
    if Quiz._meta.db_table in connections[using].introspection.table_names():
        Quiz.objects.using(using).touch()
