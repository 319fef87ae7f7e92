"""Every import, planned before it is written (docs/quiz-format.md, "Importing").

`import_plan` reads a file of any format we take (a quiz file, a guides file, a
bundle, GIFT, Moodle XML), checks all of it and compares it with the database:
the plan lists every row it would create, update or delete (the place and what
the preview shows, and the values the write gives), and every problem with its
place. It writes nothing. `import_apply` then writes exactly those rows, in one
transaction, or nothing: the preview and the write can't disagree, since both are
the same list. `quiz_import` and `guide_paths_import` go the same way for one file.
"""

import hashlib
import posixpath
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from urllib.parse import unquote

from django.conf import settings
from django.core.files.storage import default_storage
from django.core.validators import MaxLengthValidator
from django.db import transaction
from django.db.models import ProtectedError
from django.utils.translation import gettext, ngettext
from modeltranslation.utils import build_localized_fieldname

from guides.models import GuidePath
from quizzes import kinds
from quizzes.interchange import archive, bundles
from quizzes.interchange.gift import gift_parse
from quizzes.interchange.moodle_common import Origin, Parsed, choice_where, quiz_slug_for
from quizzes.interchange.moodle_xml import moodle_xml_parse
from quizzes.interchange.quizfile import (
    ARCHIVE_IMAGES,
    QuizFileError,
    guide_paths_check,
    image_references,
    quiz_archive_read,
    quiz_export,
    quiz_file_check,
    quiz_file_read,
)
from quizzes.markup.images import (
    STORAGE_IMAGE_DIR,
    ImageError,
    image_check,
    image_name,
    image_store,
    image_url,
)
from quizzes.markup.rendering import plain_title
from quizzes.models import (
    Answer,
    AnswerChoice,
    Choice,
    ContentImage,
    Question,
    Quiz,
    Unit,
    content_place,
    question_key,
    translated_fields,
)
from quizzes.snapshots import text_problems

FORMAT_YAML = "yaml"
FORMAT_BUNDLE = "bundle"
FORMAT_GIFT = "gift"
FORMAT_MOODLE_XML = "moodle-xml"
FORMATS = (FORMAT_YAML, FORMAT_BUNDLE, FORMAT_GIFT, FORMAT_MOODLE_XML)
_EXTENSIONS = {
    ".yaml": FORMAT_YAML,
    ".yml": FORMAT_YAML,
    ".json": FORMAT_YAML,
    ".zip": FORMAT_BUNDLE,
    ".gift": FORMAT_GIFT,
    ".txt": FORMAT_GIFT,
    ".xml": FORMAT_MOODLE_XML,
}
MAX_YAML_BYTES = 5 * 2**20  # One quiz or guides file.
MAX_UPLOAD_BYTES = archive.MAX_ARCHIVE_BYTES  # The largest file any format takes.

CREATE = "create"
UPDATE = "update"
DELETE = "delete"
GUIDE_PATH, QUIZ, QUESTION, CHOICE, IMAGE = THINGS = (
    "guide path",
    "quiz",
    "question",
    "choice",
    "image",
)


@dataclass(frozen=True)
class Change:
    """One thing an import writes: `kind` is create, update or delete; `what` says what."""

    kind: str
    thing: str  # One of THINGS.
    place: str
    what: str


@dataclass(frozen=True)
class Write:
    """One row an import writes: `change` as the preview shows it, `key` the row and `values`
    what a create or an update gives it.

    The key is a guide path's or a quiz's slug, a question's quiz slug and key, a choice's
    quiz slug, question key and position, an image's storage name. A write
    that isn't `listed` (the choices of a new question…) shows only in the counts.
    """

    change: Change
    key: tuple
    values: dict = field(default_factory=dict)
    listed: bool = True


@dataclass(frozen=True)
class ImportPlan:
    """What importing a file would write, and what in it can't be.

    `writes` are the rows written, in order. `errors` refuse the whole file:
    nothing of it can be imported. `problems` are parts left out, `warnings` what
    is imported with a loss, `matches` how the questions of a one-language file
    were matched to the site's. A file with parts left out is refused unless the
    editor chose to import the rest (`rest`), as Moodle refuses a file it can't read
    whole: the preview shows what would be left out and offers to.
    """

    format: str
    writes: tuple[Write, ...] = ()
    errors: tuple[tuple[str, str], ...] = ()
    problems: tuple[tuple[str, str], ...] = ()
    warnings: tuple[tuple[str, str], ...] = ()
    matches: tuple[tuple[str, str], ...] = ()
    images: tuple[tuple[str, bytes], ...] = ()  # (storage name, content) the writes store.
    rest: bool = False  # Import the rest when parts are left out.

    @property
    def changes(self) -> tuple[Change, ...]:
        return tuple(write.change for write in self.writes if write.listed)

    @property
    def counts(self) -> tuple[tuple[str, str, int], ...]:
        """(kind, thing, number) of everything written, the writes not listed too."""
        counts = Counter((write.change.kind, write.change.thing) for write in self.writes)
        return tuple((kind, thing, number) for (kind, thing), number in counts.items())

    @property
    def writes_guide_paths(self) -> bool:
        return any(write.change.thing == GUIDE_PATH for write in self.writes)

    @property
    def quiz_slugs(self) -> tuple[str, ...]:
        """The quizzes the plan writes (their questions or choices count), in order."""
        things = (QUIZ, QUESTION, CHOICE)
        slugs = [write.key[0] for write in self.writes if write.change.thing in things]
        return tuple(dict.fromkeys(slugs))

    @property
    def can_apply(self) -> bool:
        """Whether the plan may be written: no error, and nothing left out but by choice."""
        return not self.errors and (self.rest or not self.problems)

    @property
    def leaves_out(self) -> bool:
        """Whether it could be written but for what it leaves out: the editor chooses."""
        return not self.errors and bool(self.problems) and not self.rest

    @property
    def digest(self) -> str:
        """Tells two plans apart: a preview is confirmed only if the plan is still the same."""
        return hashlib.sha256(repr((self.writes, self.errors, self.problems)).encode()).hexdigest()


def format_detect(*, name: str, content: bytes) -> str:
    """The format of a file, by its extension, else by its first bytes."""
    for extension, file_format in _EXTENSIONS.items():
        if name.lower().endswith(extension):
            return file_format
    if archive.is_zip(content):
        return FORMAT_BUNDLE
    start = content[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if start.startswith(b"<"):
        return FORMAT_MOODLE_XML
    if any(line.startswith((b"slug:", b"guide_paths:", b"{")) for line in start.splitlines()):
        return FORMAT_YAML
    return FORMAT_GIFT


def _messages(pairs) -> list[str]:
    return [f"{place}: {message}" if place else message for place, message in pairs]


@dataclass
class _Planner:
    """Collects the writes and problems of one plan while the file is compared."""

    format: str
    writes: list[Write] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    matches: list[tuple[str, str]] = field(default_factory=list)
    images: dict[str, bytes] = field(default_factory=dict)  # The file's images, checked.
    texts_rendered: bool = False  # The file's texts were rendered and found right already.
    shown: dict[str, str] = field(default_factory=dict)  # Images its quizzes show, by alt.
    categories: dict[str, str] = field(default_factory=dict)  # The quiz of each category.

    def write(
        self,
        kind: str,
        thing: str,
        place: str,
        what: str,
        key: tuple,
        values: dict | None = None,
        *,
        listed: bool = True,
    ) -> None:
        self.writes.append(Write(Change(kind, thing, place, what), key, values or {}, listed))

    def plan(self) -> ImportPlan:
        if self.errors:
            return ImportPlan(format=self.format, errors=tuple(self.errors))
        # The images the file's quizzes show (the quizzes written or not) that the site lacks.
        images = {
            name: data
            for name, data in sorted(self.images.items())
            if name in self.shown and not _image_kept(name)
        }
        writes = [
            Write(
                Change(CREATE, IMAGE, posixpath.basename(name), ""),
                (name,),
                {_default("alt"): self.shown[name] or name},
            )
            for name in images
        ]
        return ImportPlan(
            format=self.format,
            writes=(*writes, *self.writes),
            problems=tuple(self.problems),
            warnings=tuple(self.warnings),
            matches=tuple(self.matches),
            images=tuple(images.items()),
        )


def _image_kept(name: str) -> bool:
    return default_storage.exists(name) and ContentImage.objects.filter(file=name).exists()


def import_plan(
    *,
    content: bytes,
    name: str = "",
    file_format: str | None = None,
    language: str | None = None,
    quiz_slug: str | None = None,
    texts_rendered: bool = False,
    import_rest: bool = False,
) -> ImportPlan:
    """What importing `content` would write, checked in full; writes nothing.

    `language` and `quiz_slug` are for GIFT and Moodle XML, whose files hold one
    language: their questions fill that language's texts of the quiz of the
    same title (or `quiz_slug`), matched by position, or make new quizzes.
    `texts_rendered`: this very content was planned already, its quizzes' texts rendered and
    found right (the admin's confirm of its preview); they are not rendered again.
    `import_rest`: the editor chose to import the rest when parts are left out.
    """
    file_format = file_format or format_detect(name=name, content=content)
    planner = _Planner(format=file_format, texts_rendered=texts_rendered)
    try:
        if file_format == FORMAT_BUNDLE and bundles.is_quiz_archive(content):
            quiz_zip = quiz_archive_read(content=content)
            _images_plan(planner, quiz_zip.images)
            _quiz_plan(planner, quiz_zip.data, known_guides=set(), place="")
        elif file_format == FORMAT_BUNDLE:
            _bundle_plan(planner, bundles.bundle_read(content=content))
        elif file_format in (FORMAT_GIFT, FORMAT_MOODLE_XML):
            language = language or settings.LANGUAGE_CODE
            parse = gift_parse if file_format == FORMAT_GIFT else moodle_xml_parse
            parsed = parse(content, language=language, quiz_slug=quiz_slug)
            _moodle_plan(planner, parsed, language=language, quiz_slug=quiz_slug)
        else:
            _yaml_plan(planner, _yaml_read(content))
    except QuizFileError as error:  # ContentFileError too.
        planner.errors.extend(error.errors)
    return replace(planner.plan(), rest=import_rest)


def _yaml_read(content: bytes) -> dict:
    if len(content) > MAX_YAML_BYTES:
        message = gettext("The file is %(size)s MB; at most %(limit)s MB can be imported.")
        sizes = {"size": round(len(content) / 2**20, 1), "limit": round(MAX_YAML_BYTES / 2**20)}
        raise QuizFileError([("", message % sizes)])
    return quiz_file_read(content=content)


def _yaml_plan(planner: _Planner, data: dict) -> None:
    if set(data) == {"guide_paths"} and isinstance(data["guide_paths"], list):
        _guides_diff(planner, guide_paths_check(data=data))
        return
    _quiz_plan(planner, data, known_guides=set(), place="")


def _bundle_plan(planner: _Planner, bundle: bundles.Bundle) -> None:
    _images_plan(
        planner,
        {posixpath.join(STORAGE_IMAGE_DIR, name): data for name, data in bundle.images.items()},
    )
    known = set()
    if bundle.guides is not None:
        try:
            guides = guide_paths_check(data=bundle.guides)
        except QuizFileError as error:
            raise QuizFileError(bundles.in_entry(bundles.GUIDES_NAME, error.errors)) from None
        _guides_diff(planner, guides)
        known = {slug for slug, _fields in guides}
    for name, data in bundle.quizzes:
        slug = name.removeprefix(bundles.QUIZ_DIR).removesuffix(".yaml")
        if isinstance(data, dict) and data.get("slug") != slug:
            message = gettext("the slug in the file must be the file's name (%(slug)s).")
            planner.errors.append((name, message % {"slug": slug}))
            continue
        _quiz_plan(planner, data, known_guides=known, place=name)


def _images_plan(planner: _Planner, images: dict[str, bytes]) -> None:
    """The images that come with the quizzes (by storage name); a file that is not an image
    the site takes is left out. Those a quiz shows and the site lacks are created."""
    for name, data in sorted(images.items()):
        try:
            image_check(data=data)
        except ImageError as error:
            planner.problems.append((ARCHIVE_IMAGES + posixpath.basename(name), str(error)))
            continue
        planner.images[name] = data


def _guides_diff(planner: _Planner, guides: list[tuple[str, dict]]) -> None:
    """Compare a checked guides file with the guide paths: the ones it creates or changes."""
    existing = GuidePath.objects.in_bulk([slug for slug, _fields in guides], field_name="slug")
    for slug, fields in guides:
        guide = existing.get(slug)
        place = gettext("guide path %(slug)s") % {"slug": slug}
        if guide is None:
            what = _quoted(fields[_default("title")])
            planner.write(CREATE, GUIDE_PATH, place, what, (slug,), fields)
            continue
        changed = _changed_fields(guide, fields)
        if changed:
            planner.write(UPDATE, GUIDE_PATH, place, _labels(guide, changed), (slug,), changed)


def _default(name: str) -> str:
    return build_localized_fieldname(name, settings.LANGUAGE_CODE)


def _quoted(text: str, length: int = 60) -> str:
    text = " ".join(text.split())
    return f"“{text if len(text) <= length else text[: length - 1] + '…'}”"


def _field_label(model, name: str) -> str:
    """ "prompt_fr" as "prompt (fr)"; an untranslated field as it is."""
    for base in translated_fields(model):
        for code, _name in settings.LANGUAGES:
            if name == build_localized_fieldname(base, code):
                return f"{base} ({code})"
    return name


def _changed_fields(obj, fields: dict) -> dict:
    """The fields whose value differs from the object's, with their new values."""

    def value(text):
        return "" if text is None else text

    return {name: new for name, new in fields.items() if value(getattr(obj, name)) != value(new)}


def _labels(obj, fields: dict) -> str:
    """The names of fields as the preview shows them: "title (fr), level"."""
    return ", ".join(_field_label(type(obj), name) for name in fields)


def _quiz_plan(planner: _Planner, data: dict, *, known_guides: set[str], place: str) -> None:
    """Check one quiz file and compare it with the quiz of its slug.

    Guide paths are checked here, against the database and `known_guides` (the
    ones the same bundle brings), so that a bundle can name the guide paths it
    creates; the quiz itself is checked by quiz_file_check.
    """
    guide_slugs = data.get("guide_paths", []) if isinstance(data, dict) else []
    if isinstance(guide_slugs, list) and all(isinstance(slug, str) for slug in guide_slugs):
        data = {**data, "guide_paths": []}
        known = known_guides | set(
            GuidePath.objects.filter(slug__in=guide_slugs).values_list("slug", flat=True)
        )
        unknown = sorted(set(guide_slugs) - known)
    else:
        guide_slugs, unknown = [], []
    try:
        fields, _guides, questions = quiz_file_check(
            data=data, images=planner.images, texts_rendered=planner.texts_rendered
        )
    except QuizFileError as error:
        errors = list(error.errors)
    else:
        errors = []
    if unknown:
        message = gettext("guide_paths: unknown guide paths: %(slugs)s.")
        errors.insert(0, (gettext("quiz"), message % {"slugs": ", ".join(unknown)}))
        hint = gettext(
            "Import the guide paths first: a guides file, or a bundle of the whole site "
            "(manage.py exportcontent, then importcontent)."
        )
        errors.append(("", hint))
    if errors:
        planner.errors.extend(bundles.in_entry(place, errors) if place else errors)
        return
    _quiz_diff(planner, data, fields, guide_slugs, questions)


def _quiz_diff(
    planner: _Planner, data: dict, fields: dict, guide_slugs: list[str], questions: list
) -> None:
    """The writes of a checked quiz file (`fields`, `questions` from quiz_file_check) against
    the quiz of its slug, and the deletes refused: what the preview shows and the write does.

    A question of the file is the site's question of the same key, else (a file without
    keys) the one at its position; the others are created, and the site's questions the
    file lacks are deleted. Only what differs is written: a quiz that doesn't change keeps
    its stamp.
    """
    for name, alt in image_references(data).items():
        planner.shown.setdefault(name, alt)
    slug = fields["slug"]
    fields = {name: value for name, value in fields.items() if name != "slug"}
    quiz_place = gettext("quiz %(slug)s") % {"slug": slug}
    if not _category_free(planner, slug, fields["category"], quiz_place):
        return
    quiz = Quiz.objects.filter(slug=slug).first()
    if quiz is None:
        choices = sum(len(question.choices) for question in questions)
        what = f"{_quoted(fields[_default('title')])}: " + ", ".join(
            [_count_text(QUESTION, len(questions)), _count_text(CHOICE, choices)]
        )
        values = {**fields, "guide_paths": tuple(guide_slugs)}
        planner.write(CREATE, QUIZ, quiz_place, what, (slug,), values)
        for item, key in zip(questions, _keys_given(questions, taken=set()), strict=True):
            _question_create(planner, slug, item, key, quiz_place, listed=False)
        return
    changed = _changed_fields(quiz, fields)
    if set(quiz.guide_paths.values_list("slug", flat=True)) != set(guide_slugs):
        changed["guide_paths"] = tuple(guide_slugs)
    if changed:
        planner.write(UPDATE, QUIZ, quiz_place, _labels(quiz, changed), (slug,), changed)
    site = list(quiz.questions.all())
    matched = _questions_match(questions, site)
    choices_of = {}
    for choice in Choice.objects.filter(question__quiz=quiz):
        choices_of.setdefault(choice.question_id, {})[choice.position] = choice
    units_of = {}
    for unit in Unit.objects.filter(question__quiz=quiz):
        units_of.setdefault(unit.question_id, []).append((unit.name, unit.multiplier))
    answered = set(Answer.objects.filter(question__quiz=quiz).values_list("question", flat=True))
    picked = set(
        AnswerChoice.objects.filter(choice__question__quiz=quiz).values_list("choice", flat=True)
    )
    new = [item for item, question in zip(questions, matched, strict=True) if question is None]
    new_keys = iter(_keys_given(new, taken={question.key for question in site}))
    for number, (item, question) in enumerate(zip(questions, matched, strict=True), 1):
        place = f"{quiz_place}, {content_place(number)}"
        if question is None:
            _question_create(planner, slug, item, next(new_keys), place, listed=True)
            continue
        key = (slug, question.key)
        changed = _changed_fields(question, {**item.fields, "position": item.position})
        if item.units is not None and tuple(units_of.get(question.pk, ())) != item.units:
            changed["units"] = item.units
        if changed:
            planner.write(UPDATE, QUESTION, place, _labels(question, changed), key, changed)
        old_choices = dict(choices_of.get(question.pk, {}))
        _choices_diff(
            planner, item, old_choices, picked, key=key, quiz_place=quiz_place, number=number
        )
    kept = {question.key for question in matched if question is not None}
    for question in site:
        if question.key in kept:
            continue
        place = gettext("%(quiz)s, question at position %(position)s") % {
            "quiz": quiz_place,
            "position": question.position,
        }
        if question.pk in answered:
            planner.errors.append((place, _answered()))
        key = (slug, question.key)
        for position in choices_of.get(question.pk, {}):  # Before their question, one by one.
            planner.write(DELETE, CHOICE, place, "", (*key, position), listed=False)
        planner.write(DELETE, QUESTION, place, _quoted(question.prompt), key)


def _category_free(planner: _Planner, slug: str, category: str, quiz_place: str) -> bool:
    """Whether no other quiz, of the site or of this import, comes from `category`."""
    if not category:
        return True
    other = planner.categories.setdefault(category, slug)
    if other == slug:
        other = (
            Quiz.objects.filter(category=category)
            .exclude(slug=slug)
            .values_list("slug", flat=True)
            .first()
        )
    if other is None or other == slug:
        return True
    message = gettext("quiz %(slug)s already comes from the category “%(category)s”.")
    planner.errors.append((quiz_place, message % {"slug": other, "category": category}))
    return False


def _questions_match(questions: list, site: list[Question]) -> list[Question | None]:
    """The site's question each question of the file is: the one of its key, else, for a
    question without a key, the one at its position whose key the file doesn't give."""
    by_key = {question.key: question for question in site}
    given = {item.key for item in questions if item.key}
    by_position = {question.position: question for question in site if question.key not in given}
    return [
        by_key.get(item.key) if item.key else by_position.get(item.position) for item in questions
    ]


def _keys_given(questions: list, *, taken: set[str]) -> list[str]:
    """The key each question of the file gets if it is new: its own, else one made from its
    prompt, unlike the `taken` keys and the file's."""
    taken = taken | {item.key for item in questions if item.key}
    keys, numbers = [], {}
    for item in questions:
        if item.key:
            keys.append(item.key)
            continue
        key = question_key(plain_title(item.fields[_default("prompt")]), taken, numbers)
        taken.add(key)
        keys.append(key)
    return keys


def _choices_diff(
    planner: _Planner,
    item,
    old_choices: dict,
    picked: set,
    *,
    key: tuple,
    quiz_place: str,
    number: int,
) -> None:
    """The writes of a question's choices in the file (`item`) against those it has
    (`old_choices`, by position), the deletes of picked choices refused. A change of which
    choices are correct is said among the warnings."""
    correct_before = [c.text for _p, c in sorted(old_choices.items()) if c.is_correct]
    correct_after = [
        choice_fields[_default("text")]
        for _position, choice_fields in item.choices
        if choice_fields["is_correct"]
    ]
    if correct_before != correct_after:
        message = gettext("the correct answer changes from %(before)s to %(after)s.")
        values = {
            "before": ", ".join(map(_quoted, correct_before)) or "—",
            "after": ", ".join(map(_quoted, correct_after)) or "—",
        }
        planner.warnings.append((f"{quiz_place}, {content_place(number)}", message % values))
    for choice_number, (position, choice_fields) in enumerate(item.choices, 1):
        choice_place = f"{quiz_place}, {content_place(number, choice_number)}"
        choice = old_choices.pop(position, None)
        if choice is None:
            text = _quoted(choice_fields[_default("text")])
            planner.write(CREATE, CHOICE, choice_place, text, (*key, position), choice_fields)
            continue
        changed = _changed_fields(choice, choice_fields)
        if changed:
            what = _labels(choice, changed)
            planner.write(UPDATE, CHOICE, choice_place, what, (*key, position), changed)
    for choice in old_choices.values():
        choice_place = gettext(
            "%(quiz)s, question at position %(question)s, choice at position %(choice)s"
        ) % {"quiz": quiz_place, "question": item.position, "choice": choice.position}
        if choice.pk in picked:
            planner.errors.append((choice_place, _answered()))
        planner.write(DELETE, CHOICE, choice_place, _quoted(choice.text), (*key, choice.position))


def _question_create(
    planner: _Planner, slug: str, item, question_key: str, place: str, *, listed: bool
) -> None:
    """A new question and its choices; listed, it says what it brings."""
    what = ""
    if listed:
        prompt = _quoted(item.fields[_default("prompt")])
        what = f"{prompt}, " + _count_text(CHOICE, len(item.choices))
    key = (slug, question_key)
    values = {**item.fields, "position": item.position}
    if item.units:
        values["units"] = item.units
    planner.write(CREATE, QUESTION, place, what, key, values, listed=listed)
    for position, choice_fields in item.choices:
        planner.write(CREATE, CHOICE, place, "", (*key, position), choice_fields, listed=False)


def _answered() -> str:
    return gettext("it would delete content that learners have answered.")


def _moodle_files(parsed: Parsed) -> dict[str, str | ImageError]:
    """Each file of a Moodle file by its name in the texts (`images/NAME`): the storage name
    of an image the site takes, else why it is not one."""
    files: dict[str, str | ImageError] = {}
    for name, data in sorted(parsed.images.items()):
        try:
            files[name] = image_name(data=data, extension=image_check(data=data))
        except ImageError as error:
            files[name] = error
    return files


# A Markdown image of a file of a Moodle file, ![alt](images/NAME), and a link to one,
# [text](images/NAME), whose text may be an image ([![alt](…)](images/NAME)).
_ALT = r"(?:[^\[\]\\]|\\.)*"
_MOODLE_IMAGE = re.compile(r"!\[(" + _ALT + r")\]\(" + re.escape(ARCHIVE_IMAGES) + r"([^)\s]+)\)")
_MOODLE_LINK = re.compile(
    r"(?<!!)\[((?:"
    + _ALT
    + r"|!\["
    + _ALT
    + r"\]\([^)\s]*\))*)\]\("
    + re.escape(ARCHIVE_IMAGES)
    + r"([^)\s]+)\)"
)


@dataclass
class _MoodleQuestion:
    """One question of a Moodle file, its files pointed at the site's: what it shows, and
    the problems of its files (`leaves_out`: the question can't come without them)."""

    origin: Origin
    files: dict[str, str | ImageError]
    shown: dict[str, str] = field(default_factory=dict)  # Storage name: Moodle name.
    linked: set[str] = field(default_factory=set)  # Images only a link points to.
    problems: list[tuple[str, str]] = field(default_factory=list)
    leaves_out: bool = False

    def question(self, question: dict) -> dict:
        question = {**question, **self.texts(question, "", ("prompt", "explanation"))}
        choices = []
        for number, choice in enumerate(question.get("choices", []), 1):
            where = choice_where(number)
            choices.append({**choice, **self.texts(choice, where, ("text", "feedback"))})
        return {**question, "choices": choices} if "choices" in question else question

    def texts(self, item: dict, where: str, names: tuple[str, ...]) -> dict:
        return {
            name: {
                code: self.text(text, where, f"{name} ({code})")
                for code, text in item[name].items()
            }
            for name in names
            if isinstance(item.get(name), dict)
        }

    def text(self, text: str, where: str, label: str) -> str:
        """A text with its images pointed at the site's; the links to files that can't come
        along dropped, their text kept."""
        if ARCHIVE_IMAGES not in text:
            return text
        place = self.origin.place + where

        def image(match: re.Match) -> str:
            alt, name = match.group(1), unquote(match.group(2))
            stored = self.files.get(name)
            if isinstance(stored, str):
                self.shown[stored] = name
                return f"![{alt}]({image_url(stored)})"
            self.leaves_out = True
            if stored is None:
                message = gettext("the image “%(name)s” is not in the file.")
            else:
                message = gettext("the image “%(name)s” can't come along: %(problem)s")
            values = {"name": name, "problem": str(stored)}
            self.problems.append((place, f"{label}: {message % values}"))
            return match.group()

        def link(match: re.Match) -> str:
            words, name = match.group(1), unquote(match.group(2))
            stored = self.files.get(name)
            if isinstance(stored, str):  # An image of the site: a link to it works.
                self.shown[stored] = name
                self.linked.add(stored)
                return f"[{words}]({image_url(stored)})"
            message = gettext(
                "the file “%(name)s” is left out: a text here links to no file but the site's "
                "images; its link is dropped, its text kept."
            )
            self.problems.append((place, f"{label}: {message % {'name': name}}"))
            return words

        return _MOODLE_LINK.sub(link, _MOODLE_IMAGE.sub(image, text))

    def named(self, message: str) -> str:
        """A message of the quiz-file checks with the images named as in the Moodle file."""
        for stored, name in self.shown.items():
            message = message.replace(image_url(stored), name)
        return message


def _moodle_questions(planner: _Planner, parsed: Parsed, *, language: str) -> Parsed:
    """The questions of a Moodle file that can be imported, each checked on its own.

    A question with a problem (a text too long, an image without alt text or that can't come
    along, a formula that can't be shown…) is left out, named by its place in the file (its
    line, or its number and Moodle name) with the field and the language, and the rest is
    kept: one bad question doesn't refuse the file. A file a text links to (audio, video, a
    document) is left out, the link's text kept. The images the questions kept show are
    stored as the site's (named by their content), and their texts point at them; nothing is
    stored for a question left out. The texts are rendered here, once, even in the admin's
    confirm: the checks of the quizzes they go to only look up their images.
    """
    files = _moodle_files(parsed)
    quizzes, origins, images, left_out = [], [], {}, set()
    for data, quiz_origins in zip(parsed.quizzes, parsed.origins, strict=True):
        data = _moodle_quiz_check(planner, data)
        if data is None:
            left_out.update(origin.place for origin in quiz_origins)
            continue
        kept, kept_origins = [], []
        for question, origin in zip(data["questions"], quiz_origins, strict=True):
            reading = _MoodleQuestion(origin=origin, files=files)
            question = reading.question(question)
            shown = {stored: parsed.images[name] for stored, name in reading.shown.items()}
            if reading.leaves_out:
                problems = reading.problems
            else:
                problems = _moodle_texts_check(question, reading, shown, language=language)
            if problems:
                planner.problems.extend(problems)
                left_out.add(origin.place)
                continue
            planner.problems.extend(reading.problems)  # The files it comes without.
            kept.append(question)
            kept_origins.append(origin)
            images.update(shown)
            for stored in reading.linked:  # Stored though no text shows it as an image.
                planner.shown.setdefault(stored, "")
        if kept:
            quizzes.append({**data, "questions": kept})
            origins.append(kept_origins)
    planner.warnings[:] = [warning for warning in planner.warnings if warning[0] not in left_out]
    _images_plan(planner, images)
    planner.texts_rendered = True
    return replace(parsed, quizzes=quizzes, origins=origins, images={})


def _moodle_quiz_check(planner: _Planner, data: dict) -> dict | None:
    """A Moodle category's quiz, checked without its questions: a description that can't be
    shown is left out; a quiz that can't be made leaves out its questions (None)."""
    place = gettext("quiz “%(title)s”") % {"title": next(iter(data["title"].values()), "")}
    errors = _quiz_errors({**_checkable(data, "title"), "questions": []}, {})
    if not errors:
        return data
    if "description" in data and not _quiz_errors(
        {**_checkable(data, "title"), "description": {}, "questions": []}, {}
    ):
        message = gettext("left out: %(problem)s")
        planner.problems.extend((place, message % {"problem": error}) for _where, error in errors)
        return {key: value for key, value in data.items() if key != "description"}
    planner.problems.extend((place, error) for _where, error in errors)
    return None


def _moodle_texts_check(
    question: dict, reading: _MoodleQuestion, images: dict[str, bytes], *, language: str
) -> list[tuple[str, str]]:
    """The problems of the texts of one question of a Moodle file, as the editors' checks
    find them (`text_problems`: rendered; the length its field takes; a prompt or a choice
    without text in the default language, which a file in another language leaves to the
    site), each placed where the question is in the file, with its choice, field and
    language. The rest of what the quiz-file checks ask, a Moodle file's reader makes sure of."""
    items = [("", Question, ("prompt", "explanation"), question)] + [
        (choice_where(number), Choice, ("text", "feedback"), choice)
        for number, choice in enumerate(question.get("choices", []), 1)
    ]
    problems = []
    for where, model, names, item in items:
        required = names[0]
        if language == settings.LANGUAGE_CODE and not (item.get(required) or {}).get(language):
            message = gettext("%(field)s needs a text in %(language)s.")
            problems.append(
                (reading.origin.place + where, message % {"field": required, "language": language})
            )
        for name in names:
            for code, text in (item.get(name) or {}).items():
                found = text_problems(
                    field=name,
                    language=code,
                    source=text,
                    image_exists=lambda stored: stored in images or default_storage.exists(stored),
                )
                limit = model._meta.get_field(build_localized_fieldname(name, code)).max_length
                if limit and len(text) > limit:
                    validator = MaxLengthValidator(limit)
                    length = validator.message % {"limit_value": limit, "show_value": len(text)}
                    found.append(f"{name} ({code}): {length}")
                place = reading.origin.place + where
                problems += [(place, reading.named(message)) for message in found]
    return problems


def _checkable(item: dict, name: str) -> dict:
    """`item` with a text in the default language for its field `name`, which the checks
    require: a file in another language fills the texts of a quiz that has it."""
    texts = item.get(name)
    if not isinstance(texts, dict) or texts.get(settings.LANGUAGE_CODE):
        return item
    return {**item, name: {**texts, settings.LANGUAGE_CODE: "-"}}


def _quiz_errors(data: dict, images: dict[str, bytes]) -> list:
    """What quiz_file_check finds in `data`, its texts rendered; `images` by storage name,
    which it may show. Rendered even when the file was planned already (the admin's
    confirm): what it finds decides which questions are left out, hence the plan."""
    try:
        quiz_file_check(data=data, images=images)
    except QuizFileError as error:
        return list(error.errors)
    return []


def _moodle_plan(planner: _Planner, parsed: Parsed, *, language: str, quiz_slug: str | None):
    """A GIFT or Moodle XML file's quizzes: each fills the quiz it matches (the quiz picked,
    else the quiz of its Moodle category), or is a new quiz; never a quiz of the same title."""
    planner.problems.extend(parsed.problems)
    planner.warnings.extend(parsed.warnings)
    parsed = _moodle_questions(planner, parsed, language=language)
    taken = set(Quiz.objects.values_list("slug", flat=True))
    numbers: dict[str, int] = {}
    for data, origins in zip(parsed.quizzes, parsed.origins, strict=True):
        title = data["title"][language]
        category = data.get("category", "")
        quiz = _quiz_match(category, quiz_slug)
        quiz_place = gettext("quiz “%(title)s”") % {"title": title}
        if quiz is None and language != settings.LANGUAGE_CODE:
            message = gettext(
                "no quiz of the site comes from this category. A file in %(language)s only "
                "fills the %(language)s texts of quizzes that exist (pick the quiz, or "
                "import the %(default)s questions first): left out."
            )
            values = {"language": language, "default": settings.LANGUAGE_CODE}
            planner.problems.append((quiz_place, message % values))
            continue
        if quiz is None:
            slug = quiz_slug or quiz_slug_for(title, taken, numbers)
            data = {**data, "slug": slug, "questions": _keys_unique(data["questions"], language)}
            _quiz_plan(planner, data, known_guides=set(), place="")
            continue
        message = gettext("fills %(quiz)s, of the category “%(category)s”.")
        if quiz_slug:
            message = gettext("fills %(quiz)s, the quiz picked.")
        quiz_values = {"quiz": gettext("quiz %(slug)s") % {"slug": quiz.slug}, "category": category}
        planner.matches.append((quiz_place, message % quiz_values))
        merged = _translations_fill(planner, quiz, data, origins, language=language)
        _quiz_plan(planner, merged, known_guides=set(), place="")


def _quiz_match(category: str, quiz_slug: str | None) -> Quiz | None:
    """The quiz a file's quiz fills: the quiz picked, else the one of its Moodle category."""
    if quiz_slug:
        return Quiz.objects.filter(slug=quiz_slug).first()
    if category:
        return Quiz.objects.filter(category=category).first()
    return None


def _keys_unique(questions: list[dict], language: str) -> list:
    """The questions of a Moodle file, each with a key unlike the others': its Moodle ID
    number or name, else its prompt's first line ("… (2)" when taken)."""
    taken: set[str] = set()
    keyed, numbers = [], {}
    for item in questions:
        source = item.get("key") or plain_title(item["prompt"].get(language, ""))
        key = question_key(source, taken, numbers)
        taken.add(key)
        keyed.append({**item, "key": key})
    return keyed


_QUESTION_TEXTS = ("prompt", "explanation")
_CHOICE_TEXTS = ("text", "feedback")


def _translations_fill(planner, quiz: Quiz, data: dict, origins, *, language: str) -> dict:
    """The quiz's own file with the file's quiz in `language` merged in.

    A question of the file is the quiz's question of the same key (its Moodle ID number or
    name, else its prompt's first line), else of the same Moodle name; a question of a file
    in another language without a name is the quiz's question at its number. A file in the
    default language says what a question is: its kind, its texts in that language, its
    choices and which are correct (a change said among the warnings), and its questions the
    quiz lacks are added. A file in another language fills only that language's texts: a
    question of another kind or number of choices is left out. The quiz's questions the file
    lacks are kept.
    """
    merged = quiz_export(quiz=quiz)
    quiz_place = gettext("quiz %(slug)s") % {"slug": quiz.slug}
    default = language == settings.LANGUAGE_CODE
    if data.get("description"):
        merged.setdefault("description", {})[language] = data["description"][language]
    if data.get("category") and not quiz.category:
        merged["category"] = data["category"]
    questions = merged["questions"]
    numbers = {id(question): number for number, question in enumerate(questions, 1)}
    by_key = {question["key"]: question for question in questions}
    names = Counter(question.get("name") for question in questions)
    by_name = {q["name"]: q for q in questions if q.get("name") and names[q["name"]] == 1}
    last = max((q.get("position", n) for n, q in enumerate(questions, 1)), default=0)
    claimed: set[int] = set()
    items = _keys_unique(data["questions"], language) if default else data["questions"]
    for number, (item, origin) in enumerate(zip(items, origins, strict=True), 1):
        target = by_key.get(item.get("key")) or by_name.get(item.get("name"))
        if target is None and not default and not item.get("key") and number <= len(questions):
            target = questions[number - 1]
        if target is not None and id(target) in claimed:
            message = gettext(
                "%(quiz)s, %(place)s is filled by an earlier question of the file: left out."
            )
            values = {"quiz": quiz_place, "place": content_place(numbers[id(target)])}
            planner.problems.append((origin.place, message % values))
            continue
        if target is None and not default:
            message = gettext(
                "%(quiz)s has no question of this name, and a question can't be made from "
                "%(language)s texts alone: left out."
            )
            values = {"quiz": quiz_place, "language": language}
            planner.problems.append((origin.place, message % values))
            continue
        if target is None:
            last += 1
            key = question_key(item["key"], by_key.keys())
            by_key[key] = {**item, "key": key, "position": last}
            questions.append(by_key[key])
            claimed.add(id(by_key[key]))
            message = gettext("added to %(quiz)s as a new question.")
            planner.matches.append((origin.place, message % {"quiz": quiz_place}))
            continue
        claimed.add(id(target))
        place = content_place(numbers[id(target)])
        if default:
            _question_replace(item, target, language)
        elif not _translation_copy(planner, item, target, origin, language=language):
            message = gettext(
                "does not match %(quiz)s, %(place)s (another kind or number of choices): left out."
            )
            planner.problems.append((origin.place, message % {"quiz": quiz_place, "place": place}))
            continue
        message = gettext("matched %(quiz)s, %(place)s.")
        planner.matches.append((origin.place, message % {"quiz": quiz_place, "place": place}))
    kept = sum(id(question) not in claimed for question in questions)
    if kept:
        message = ngettext(
            "%(count)s question of the quiz is not in the file: it is kept.",
            "%(count)s questions of the quiz are not in the file: they are kept.",
            kept,
        )
        planner.matches.append((quiz_place, message % {"count": kept}))
    return merged


def _question_replace(item: dict, target: dict, language: str) -> None:
    """A question of the site (`target`, a quiz-file dict) as the default-language file's
    `item` says: its kind, name, choice order, texts in that language and choices; the
    other languages' texts of its choices are kept when the number of choices is the same."""
    for name in (
        "kind",
        "keep_choice_order",
        "grading",
        "case_sensitive",
        "ignore_accents",
        "partial_credit",
        "name",
        "variables",
        "gaps",
        "units",
        "units_required",
        "units_left",
    ):
        if name in item:
            target[name] = item[name]
        else:
            target.pop(name, None)
    _texts_set(item, target, _QUESTION_TEXTS, language)
    if len(item["choices"]) != len(target["choices"]):
        target["choices"] = [dict(choice) for choice in item["choices"]]
        return
    for choice, target_choice in zip(item["choices"], target["choices"], strict=True):
        _texts_set(choice, target_choice, _CHOICE_TEXTS, language)
        target_choice["correct"] = bool(choice.get("correct"))
        if "gap" in choice:
            target_choice["gap"] = choice["gap"]
        else:
            target_choice.pop("gap", None)


def _translation_copy(planner, item: dict, target: dict, origin, *, language: str) -> bool:
    """Fill a site question's (`target`) texts in `language` from the file's `item`, if it
    is of the same kind and number of choices; the site's correct choices are kept."""
    kind = item.get("kind", kinds.DEFAULT)
    if kind != target.get("kind", kinds.DEFAULT) or len(item["choices"]) != len(target["choices"]):
        return False
    _texts_copy(item, target, _QUESTION_TEXTS, language)
    for choice, target_choice in zip(item["choices"], target["choices"], strict=True):
        _texts_copy(choice, target_choice, _CHOICE_TEXTS, language)
    if [bool(c.get("correct")) for c in item["choices"]] != [
        bool(c.get("correct")) for c in target["choices"]
    ]:
        message = gettext("other choices are correct in the file: the site's are kept.")
        planner.warnings.append((origin.place, message))
    return True


def _texts_set(source: dict, target: dict, names: tuple[str, ...], language: str) -> None:
    """The texts in `language` as `source` has them (a text it lacks is removed), with the
    other languages a Moodle multilang text holds."""
    for name in names:
        texts = target.setdefault(name, {})
        if isinstance(texts, str):
            texts = target[name] = {settings.LANGUAGE_CODE: texts}
        texts.pop(language, None)
    _texts_copy(source, target, names, language)


def _texts_copy(source: dict, target: dict, names: tuple[str, ...], language: str) -> None:
    """The texts in `language`, and in the other languages a Moodle multilang text holds."""
    for name in names:
        for code, text in (source.get(name) or {}).items():
            if text and (code == language or code in _LANGUAGE_CODES):
                target.setdefault(name, {})[code] = text


_LANGUAGE_CODES = {code for code, _name in settings.LANGUAGES}


@transaction.atomic
def import_apply(*, plan: ImportPlan) -> ImportPlan:
    """Write a plan's writes, in order, all of them or none.

    Questions and choices go in batches (`_Writer`): a bounded number of queries per quiz,
    not a few per row. Raises QuizFileError (and writes nothing) when the plan can't be
    applied, or when a learner answered what it deletes since it was computed.
    """
    if not plan.can_apply:
        raise QuizFileError(list(plan.errors or plan.problems))
    writer = _Writer(images=dict(plan.images))
    for write in plan.writes:
        writer.write(write)
    writer.flush()
    return plan


_MODELS = {GUIDE_PATH: GuidePath, QUIZ: Quiz, QUESTION: Question, CHOICE: Choice}
_PARENTS = {QUESTION: (QUIZ, "quiz"), CHOICE: (QUESTION, "question")}
_KEY_FIELDS = {QUESTION: "key", CHOICE: "position"}  # What the last part of a key is.
_BATCHED = (QUESTION, CHOICE)
_BATCH_SIZE = 500


@dataclass
class _Writer:
    """Writes a plan's rows: guide paths, quizzes and images one by one, as they come; the
    writes of questions and choices kept and done together before the next write of another
    kind and at the end: deletes, then the questions that move (to free positions first, as
    positions are unique in a quiz), then creates (questions before their choices), then
    updates. A plan creates at positions that its deletes and moves free. `bulk_create`,
    `rows_update` (one UPDATE sent with each row's values) and `delete` move the quizzes'
    stamps as saves do. A quiz's questions and choices are read once, the first time one of
    them is written; a question is keyed by its key, a choice by its question's key and its
    position."""

    images: dict[str, bytes]
    rows: dict[tuple, object] = field(default_factory=dict)  # (thing, key): its row.
    read: set[str] = field(default_factory=set)  # Quizzes whose rows are in `rows`.
    deletes: dict[str, dict] = field(default_factory=lambda: {thing: {} for thing in _BATCHED})
    creates: dict[str, list] = field(default_factory=lambda: {thing: [] for thing in _BATCHED})
    updates: dict[str, dict] = field(default_factory=lambda: {thing: {} for thing in _BATCHED})
    updated_fields: dict[str, set] = field(
        default_factory=lambda: {thing: set() for thing in _BATCHED}
    )
    moves: dict[int, tuple[Question, int]] = field(default_factory=dict)  # (row, position).
    # A question's units by its key, written anew after it: ((name, multiplier), …).
    units: dict[tuple, tuple] = field(default_factory=dict)

    def write(self, write: Write) -> None:
        thing = write.change.thing
        values = dict(write.values)
        if thing in _BATCHED:
            self._keep(write, values)
            return
        self.flush()
        if thing == IMAGE:
            (name,) = write.key
            image_store(name=name, data=self.images[name])
            ContentImage.objects.get_or_create(file=name, defaults=values)
            return
        guide_slugs = values.pop("guide_paths", None)
        lookup = {"slug": write.key[0]}
        row, _created = _MODELS[thing].objects.update_or_create(**lookup, defaults=values)
        self.rows[thing, write.key] = row
        if guide_slugs is not None:
            row.guide_paths.set(GuidePath.objects.filter(slug__in=guide_slugs))

    def _keep(self, write: Write, values: dict) -> None:
        kind, thing, key = write.change.kind, write.change.thing, write.key
        model, (parent_thing, parent_field) = _MODELS[thing], _PARENTS[thing]
        self._quiz_read(key[0])
        parent = self.rows.get((parent_thing, key[:-1]))
        if parent is None:
            raise model.DoesNotExist(f"{parent_thing} {key[:-1]} of {thing} {key}")
        if thing == QUESTION and "units" in values:
            self.units[key] = values.pop("units")
        if kind == CREATE:
            row = model(**{parent_field: parent, _KEY_FIELDS[thing]: key[-1]}, **values)
            self.creates[thing].append(row)
            self.rows[thing, key] = row
            return
        row = self.rows.get((thing, key))
        if kind == DELETE:
            if row is not None:
                self.deletes[thing][row.pk] = write.change.place
            return
        if row is None:
            raise model.DoesNotExist(f"{thing} {key}")
        if "position" in values:
            self.moves[id(row)] = (row, values.pop("position"))
        if not values:
            return
        for name, value in values.items():
            setattr(row, name, value)
        self.updates[thing][id(row)] = row
        self.updated_fields[thing].update(values)

    def flush(self) -> None:
        """Write what was kept: deletes, creates, updates, a few queries for each."""
        for thing in reversed(_BATCHED):  # Choices first: no cascade to collect.
            if self.deletes[thing]:
                self._delete(thing)
        if self.moves:
            self._move()
        for thing in _BATCHED:
            if self.creates[thing]:
                _MODELS[thing].objects.bulk_create(self.creates[thing], batch_size=_BATCH_SIZE)
                self.creates[thing] = []
        for thing in _BATCHED:
            if self.updates[thing]:
                rows, names = self.updates[thing].values(), sorted(self.updated_fields[thing])
                _MODELS[thing].objects.rows_update(rows, names)
                self.updates[thing], self.updated_fields[thing] = {}, set()
        if self.units:
            self._units_write()

    def _units_write(self) -> None:
        """The questions' units as the plan gives them: the old ones deleted, the new made."""
        questions = [self.rows[QUESTION, key] for key in self.units]
        units = [
            Unit(question=question, position=position, name=name, multiplier=multiplier)
            for question, pairs in zip(questions, self.units.values(), strict=True)
            for position, (name, multiplier) in enumerate(pairs, 1)
        ]
        self.units = {}
        Unit.objects.filter(question__in=questions).delete()
        Unit.objects.bulk_create(units, batch_size=_BATCH_SIZE)

    def _move(self) -> None:
        """Move questions to their new positions: first past every position of their
        quizzes, then where they go, so that no two share a position on the way."""
        moves = list(self.moves.values())
        self.moves = {}
        rows = [row for (thing, _key), row in self.rows.items() if thing == QUESTION]
        start = max(row.position for row in rows) + max(position for _row, position in moves)
        for number, (row, _position) in enumerate(moves, 1):
            row.position = start + number
        Question.objects.rows_update([row for row, _p in moves], ["position"])
        for row, position in moves:
            row.position = position
        Question.objects.rows_update([row for row, _p in moves], ["position"])

    def _delete(self, thing: str) -> None:
        places = self.deletes[thing]
        self.deletes[thing] = {}
        model = _MODELS[thing]
        try:
            model.objects.filter(pk__in=list(places)).delete()
        except ProtectedError as error:
            # The rows answered since the plan: those the protecting answers point at.
            answered = sorted(
                {
                    places[getattr(obj, related.attname)]
                    for obj in error.protected_objects
                    for related in obj._meta.concrete_fields
                    if related.is_relation
                    and related.related_model is model
                    and getattr(obj, related.attname) in places
                }
            ) or [next(iter(places.values()))]
            raise QuizFileError([(place, _answered()) for place in answered]) from None

    def _quiz_read(self, slug: str) -> None:
        """The quiz and its questions and choices into `rows` (three queries), once; the
        rows already there (written by this plan) are kept."""
        if slug in self.read:
            return
        self.read.add(slug)
        quiz = self.rows.get((QUIZ, (slug,))) or Quiz.objects.filter(slug=slug).first()
        if quiz is None:
            return
        self.rows.setdefault((QUIZ, (slug,)), quiz)
        keys = {}
        for question in Question.objects.filter(quiz=quiz):
            keys[question.pk] = question.key
            self.rows.setdefault((QUESTION, (slug, question.key)), question)
        for choice in Choice.objects.filter(question__quiz=quiz):
            key = (slug, keys[choice.question_id], choice.position)
            self.rows.setdefault((CHOICE, key), choice)


def quiz_import(*, data: dict, images: dict[str, bytes] | None = None) -> Quiz:
    """Create or update the quiz of one quiz file through its plan, as an import would.

    The whole file is checked first (its guide paths must exist, its `images`, by
    storage name, must all be images the site takes) and every problem reported
    at once; a bad file, or one that would delete answered content, changes nothing.
    """
    planner = _Planner(format=FORMAT_YAML, images=dict(images or {}))
    fields, guides, questions = quiz_file_check(data=data, images=planner.images)
    slug = fields["slug"]
    _quiz_diff(planner, data, fields, [guide.slug for guide in guides], questions)
    import_apply(plan=planner.plan())
    return Quiz.objects.get(slug=slug)


def guide_paths_import(*, data: dict) -> list[GuidePath]:
    """Create or update guide paths by slug from a guides file, through its plan."""
    guides = guide_paths_check(data=data)
    planner = _Planner(format=FORMAT_YAML)
    _guides_diff(planner, guides)
    import_apply(plan=planner.plan())
    slugs = [slug for slug, _fields in guides]
    return sorted(GuidePath.objects.filter(slug__in=slugs), key=lambda g: slugs.index(g.slug))


def _count_text(thing: str, number: int) -> str:
    """ "1 question", "3 choices"."""
    forms = {
        GUIDE_PATH: ngettext("%(count)s guide path", "%(count)s guide paths", number),
        QUIZ: ngettext("%(count)s quiz", "%(count)s quizzes", number),
        QUESTION: ngettext("%(count)s question", "%(count)s questions", number),
        CHOICE: ngettext("%(count)s choice", "%(count)s choices", number),
        IMAGE: ngettext("%(count)s image", "%(count)s images", number),
    }
    return forms[thing] % {"count": number}


def plan_summary(plan: ImportPlan) -> list[str]:
    """One line per kind of change, "Create: 2 guide paths, 2 quizzes, 16 questions", or
    "Nothing to change." when the plan writes nothing."""
    kinds = {CREATE: gettext("Create"), UPDATE: gettext("Update"), DELETE: gettext("Delete")}
    counts = {(kind, thing): number for kind, thing, number in plan.counts}
    lines = []
    for kind, label in kinds.items():
        parts = [
            _count_text(thing, counts[kind, thing]) for thing in THINGS if (kind, thing) in counts
        ]
        if parts:
            lines.append(
                gettext("%(kind)s: %(things)s.") % {"kind": label, "things": ", ".join(parts)}
            )
    return lines or [gettext("Nothing to change.")]


def plan_lines(plan: ImportPlan) -> list[str]:
    """The plan as the commands print it: the summary, each change, then what was matched,
    left out and imported with a loss, each with its place."""
    if plan.errors:
        return [gettext("The file can't be imported:"), *_indented(plan.errors)]
    kinds = {CREATE: gettext("create"), UPDATE: gettext("update"), DELETE: gettext("delete")}
    lines = plan_summary(plan)
    lines += [
        "  " + ": ".join(filter(None, [kinds[change.kind], change.place, change.what]))
        for change in plan.changes
    ]
    for title, pairs in (
        (gettext("Matched:"), plan.matches),
        (gettext("Left out:"), plan.problems),
        (gettext("Imported with a loss:"), plan.warnings),
    ):
        if pairs:
            lines += [title, *_indented(pairs)]
    return lines


def _indented(pairs) -> list[str]:
    return ["  " + line for line in _messages(pairs)]
