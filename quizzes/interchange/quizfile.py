"""The quiz file format (docs/quiz-format.md): read, check and export quizzes and guide paths
as YAML files. The whole file is checked before anything is written; importing.py writes it."""

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

import yaml
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.db import models
from django.db.models import prefetch_related_objects
from django.utils.translation import gettext
from modeltranslation.utils import build_localized_fieldname

from guides.models import GuidePath
from quizzes import kinds
from quizzes.interchange.archive import archive_read, archive_write, is_zip
from quizzes.interchange.errors import QuizFileError
from quizzes.kinds import calculated
from quizzes.kinds.numerical import Numerical, plain, unit_problems
from quizzes.markup import rendering as markup
from quizzes.markup.images import STORAGE_IMAGE_DIR, ImageError, image_check, name_of_url
from quizzes.models import (
    PARTIAL_CREDIT_ONLY_SEVERAL,
    Choice,
    Level,
    Question,
    Quiz,
    content_place,
    edited_choice,
    prompts_of,
    translated_fields,
)
from quizzes.snapshots import markdown_lengths, quiz_length_problems, text_problems

MAX_DEPTH = 20  # Nested lists and mappings; a quiz file nests 6 deep.
MAX_DIGITS = 100  # In an integer; Python refuses to read one of over 4,300.
_UNWRITABLE = re.compile("[\x00\ud800-\udfff]")  # NUL and lone surrogates, from escapes.


class _Refused(yaml.MarkedYAMLError):
    """What a quiz file may not hold, though YAML may: said as it is, with its line."""


class _Loader(yaml.CSafeLoader):
    """YAML's safe loader, on libyaml's parser (five times as fast as PyYAML's own on a
    2,000-question file), refusing what would take the site down rather than data in:
    integers of over MAX_DIGITS digits and texts holding NUL or a lone surrogate (which no
    database or page takes), written as escapes ("\\0", "\\ud800"). `_refusals` reads the
    file's events first for the rest."""

    def construct_yaml_int(self, node):
        if sum(char.isdigit() for char in node.value) > MAX_DIGITS:
            message = gettext("a number has more than %(digits)s digits.")
            raise _Refused(problem=message % {"digits": MAX_DIGITS}, problem_mark=node.start_mark)
        return super().construct_yaml_int(node)

    def construct_yaml_str(self, node):
        value = super().construct_yaml_str(node)
        if _UNWRITABLE.search(value):
            message = gettext("a text holds a NUL character or a lone surrogate (\\0, \\ud800).")
            raise _Refused(problem=message, problem_mark=node.start_mark)
        return value


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.add_constructor("tag:yaml.org,2002:str", _Loader.construct_yaml_str)
_NODES = (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)
_OPENS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSES = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


def _refusals(text: str) -> None:
    """Raise _Refused, before anything is built, for aliases (a few hundred bytes of aliases
    in aliases stand for millions of questions, since checking the file goes over every copy)
    and nesting past MAX_DEPTH (building the nodes recurses), from the parser's events."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, yaml.AliasEvent):
            message = gettext("YAML aliases (*name) are not allowed in a quiz file.")
            raise _Refused(problem=message, problem_mark=event.start_mark)
        if isinstance(event, _NODES) and depth >= MAX_DEPTH:
            message = gettext("the lists and fields are nested more than %(depth)s deep.")
            raise _Refused(problem=message % {"depth": MAX_DEPTH}, problem_mark=event.start_mark)
        if isinstance(event, _OPENS):
            depth += 1
        elif isinstance(event, _CLOSES):
            depth -= 1


def quiz_file_read(*, content: bytes) -> dict:
    """Decode and parse a quiz or guides file: UTF-8 YAML (or JSON) holding a mapping."""
    if b"\x00" in content:
        raise QuizFileError([("", gettext("This is a binary file, not a YAML text file."))])
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        message = gettext("The file is not UTF-8 text (invalid byte at position %(position)s).")
        raise QuizFileError([("", message % {"position": error.start + 1})]) from None
    try:
        _refusals(text)
        data = yaml.load(text, Loader=_Loader)  # noqa: S506 (_Loader is a SafeLoader)
    except _Refused as error:
        place = gettext("line %(line)s") % {"line": error.problem_mark.line + 1}
        raise QuizFileError([(place, error.problem)]) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        # libyaml marks the end of a file that ends without a line break on the line after.
        line = min(mark.line + 1, text.count("\n") + 1) if mark else 0
        place = gettext("line %(line)s") % {"line": line} if mark else ""
        problem = error.problem or error.context or ""
        message = gettext("broken YAML syntax: %(problem)s.") % {"problem": problem}
        raise QuizFileError([(place, message)]) from None
    except yaml.YAMLError:
        raise QuizFileError([("", gettext("The file is not valid YAML."))]) from None
    if not isinstance(data, dict):
        message = gettext("The file must hold a mapping of fields (slug, title, questions…).")
        raise QuizFileError([("", message)])
    return data


def quiz_file_dump(data: dict) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=100)


# A quiz with images travels as a .zip (read and written by `archive`, under its limits): its
# YAML file and images/<name> for every image its texts show (`/media/content/<name>`).
ARCHIVE_IMAGES = "images/"
_IMAGE_BASENAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


@dataclass(frozen=True)
class QuizArchive:
    """A quiz file with the images it brings, by storage name (`content/<name>`)."""

    data: dict
    images: dict[str, bytes]


def quiz_archive_read(*, content: bytes) -> QuizArchive:
    """A YAML quiz file, or a .zip holding one YAML file and its images/."""
    if not is_zip(content):
        return QuizArchive(quiz_file_read(content=content), {})
    files = archive_read(content=content, name_problem=_archive_name_problem)
    yamls = [name for name in files if not name.startswith(ARCHIVE_IMAGES)]
    if len(yamls) != 1:
        message = gettext("The archive must hold one .yaml quiz file at its top, and images/.")
        raise QuizFileError([("", message)])
    images = {
        posixpath.join(STORAGE_IMAGE_DIR, name.removeprefix(ARCHIVE_IMAGES)): data
        for name, data in files.items()
        if name.startswith(ARCHIVE_IMAGES)
    }
    return QuizArchive(quiz_file_read(content=files[yamls[0]]), images)


def _archive_name_problem(name: str) -> str | None:
    if "/" not in name and name.endswith((".yaml", ".yml")):
        return None
    if name.startswith(ARCHIVE_IMAGES) and _IMAGE_BASENAME.match(name.removeprefix(ARCHIVE_IMAGES)):
        return None
    return gettext("unexpected file in the archive: only images/<name> may be there.")


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def image_references(data: dict) -> dict[str, str]:
    """{storage name: first alt text} of the site's images the file's texts show."""
    found: dict[str, str] = {}
    for text in _strings(data):
        if "](" in text:
            for src, alt in markup.images(text):
                name = name_of_url(src)
                if name is not None:
                    found.setdefault(name, alt)
    return found


def quiz_archive(*, quiz: Quiz) -> tuple[str, bytes, str]:
    """(file name, content, content type) of a quiz's export: YAML, or a .zip with its images."""
    data = quiz_export(quiz=quiz)
    text = quiz_file_dump(data)
    names = sorted(image_references(data))
    if not names:
        return f"{quiz.slug}.yaml", text.encode(), "application/yaml; charset=utf-8"
    files = {f"{quiz.slug}.yaml": text.encode()}
    for name in names:
        with default_storage.open(name, "rb") as image:
            files[ARCHIVE_IMAGES + posixpath.basename(name)] = image.read()
    return f"{quiz.slug}.zip", archive_write(files), "application/zip"


QUIZ_KEYS = {
    "slug",
    "title",
    "description",
    "level",
    "pass_mark",
    "shuffle_choices",
    "is_published",
    "guide_paths",
    "category",
    "questions",
}
QUESTION_KEYS = {
    "key",
    "name",
    "position",
    "kind",
    "keep_choice_order",
    "grading",
    "case_sensitive",
    "ignore_accents",
    "partial_credit",
    "prompt",
    "explanation",
    "guide_url",
    "variables",
    "gaps",
    "choices",
    "units",
    "units_required",
    "units_left",
}
CHOICE_KEYS = {"position", "gap", "text", "match", "correct", "feedback", "tolerance", "credit"}
UNIT_KEYS = {"name", "multiplier"}
MAX_UNITS = 50
GUIDE_PATH_KEYS = {"slug", "title", "summary", "url", "position", "is_published"}


@dataclass
class _FileChecker:
    """Reads values out of a parsed file, collecting every problem with its place."""

    errors: list[tuple[str, str]] = field(default_factory=list)
    # Which images a text may show: the site's, and those the file brings.
    image_exists: Callable[[str], bool] = default_storage.exists
    render: bool = True  # Render each text to check it (text_problems).

    def error(self, place: str, message: str) -> None:
        self.errors.append((place, message))

    def mapping(self, value, place: str, keys: set[str], required: set[str]) -> dict:
        if not isinstance(value, dict):
            self.error(place, gettext("must be a mapping of fields."))
            return {}
        unknown = sorted(str(key) for key in value if key not in keys)
        if unknown:
            message = gettext("unknown fields: %(fields)s (allowed: %(allowed)s).")
            allowed = ", ".join(sorted(keys))
            self.error(place, message % {"fields": ", ".join(unknown), "allowed": allowed})
        for key in sorted(required - set(value)):
            self.error(place, gettext("%(field)s is missing.") % {"field": key})
        return value

    def typed(self, data: dict, key: str, place: str, kind: type, default):
        value = data.get(key, default)
        # YAML reads true/false as bool, which is also an int.
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            names = {str: gettext("a text"), int: gettext("a whole number"), bool: "true / false"}
            message = gettext("%(field)s must be %(kind)s.") % {"field": key, "kind": names[kind]}
            self.error(place, message)
            return default
        return value

    def variables(self, data: dict, place: str, kind) -> list[dict]:
        """A calculated question's variables as `Question.variables` keeps them (numbers as
        plain decimals); the kind checks them with its formulas."""
        raw = data.get("variables")
        if raw in (None, []):
            return []
        if kind is not None and not kind.has_variables:
            self.error(place, gettext("only calculated questions have variables."))
            return []
        parsed, problems = calculated.parse_variables(raw)
        for problem in problems:
            self.error(place, problem)
        return calculated.stored_variables(parsed) if not problems else []

    def gaps(self, data: dict, place: str, kind) -> list[str]:
        """A gaps question's gaps, the kind of each in order, as `Question.gaps` keeps them;
        the kind checks them with its prompt and choices."""
        raw = data.get("gaps")
        if raw in (None, []):
            return []
        if kind is not None and not kind.fills_prompt:
            self.error(place, gettext("only gaps questions have gaps."))
            return []
        if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
            self.error(place, gettext("gaps must be a list of the kinds of the gaps."))
            return []
        return raw

    def number(self, data: dict, key: str, place: str, default: int = 0) -> Decimal:
        """A choice's tolerance or credit, a unit's multiplier: a number (0.5) or a text of
        one ("0.5", "1e-3"); `default` when not given (the model checks its range)."""
        value = data.get(key, default)
        try:
            if isinstance(value, bool) or not isinstance(value, int | float | str):
                raise InvalidOperation
            number = Decimal(str(value).strip())
            if not number.is_finite():
                raise InvalidOperation
        except InvalidOperation:
            message = gettext("%(field)s must be a number, such as 0.5.") % {"field": key}
            self.error(place, message)
            return Decimal(0)
        return number

    def tolerance(self, data: dict, place: str) -> tuple[Decimal, bool]:
        """A choice's tolerance, a distance (0.5) or a percentage of its value ("1%"), and
        whether it is a percentage."""
        value = data.get("tolerance", 0)
        if isinstance(value, str) and value.strip().endswith("%"):
            percent = {"tolerance": value.strip().removesuffix("%")}
            return self.number(percent, "tolerance", place), True
        return self.number(data, "tolerance", place), False

    def units(self, data: dict, place: str, kind: str) -> tuple[tuple[str, Decimal], ...] | None:
        """A numerical question's units, as (name, multiplier) in order; None when the file
        doesn't say (GIFT has no units): a question's units are then left as they are."""
        if "units" not in data:
            return None
        items = self.items(data, "units", place)
        if items and kind != Numerical.name:
            self.error(place, gettext("units are for numerical questions."))
            return ()
        if len(items) > MAX_UNITS:
            message = gettext("too many units: %(count)s at most.")
            self.error(place, message % {"count": MAX_UNITS})
            return ()
        units = []
        for item in items:
            item = self.mapping(item, place, UNIT_KEYS, {"name"})
            name = item.get("name", "")
            units.append(
                (name if isinstance(name, str) else "", self.number(item, "multiplier", place, 1))
            )
        for problem in unit_problems(units):
            self.error(place, problem)
        return tuple(units)

    def items(self, data: dict, key: str, place: str) -> list:
        value = data.get(key, [])
        if not isinstance(value, list):
            self.error(place, gettext("%(field)s must be a list.") % {"field": key})
            return []
        return value

    def texts(self, data: dict, key: str, place: str, *, required: bool) -> dict[str, str]:
        """The translated field `key` as {"title_en": …, "title_fr": …}."""
        value = data.get(key, {})
        if isinstance(value, str):
            value = {settings.LANGUAGE_CODE: value}
        languages = [code for code, _name in settings.LANGUAGES]
        if not isinstance(value, dict) or not all(isinstance(text, str) for text in value.values()):
            message = gettext("%(field)s must be a text or map language codes to texts.")
            self.error(place, message % {"field": key})
            value = {}
        unknown = sorted(str(code) for code in value if code not in languages)
        if unknown:
            message = gettext("%(field)s has unknown languages: %(languages)s.")
            self.error(place, message % {"field": key, "languages": ", ".join(unknown)})
        if required and not value.get(settings.LANGUAGE_CODE):
            message = gettext("%(field)s needs a text in %(language)s.")
            self.error(place, message % {"field": key, "language": settings.LANGUAGE_CODE})
        for code in languages:
            source = value.get(code) or ""
            for problem in text_problems(
                field=key,
                language=code,
                source=source,
                image_exists=self.image_exists,
                render=self.render,
            ):
                self.error(place, problem)
        return {build_localized_fieldname(key, code): value.get(code) or "" for code in languages}

    def positions(self, items: list[dict], place_of) -> list[int]:
        """Each item's `position` if it gives one, else its number in the list."""
        positions: list[int] = []
        for number, item in enumerate(items, 1):
            position = self.typed(item, "position", place_of(number), int, number)
            if position < 1:
                self.error(place_of(number), gettext("position must be 1 or more."))
            elif position in positions:
                message = gettext("position %(position)s is already used by %(other)s.")
                other = place_of(positions.index(position) + 1)
                self.error(place_of(number), message % {"position": position, "other": other})
            positions.append(position)
        return positions

    def keys(self, items: list[dict], place_of) -> list[str]:
        """Each question's `key`, "" where it gives none; a key used twice is an error."""
        keys: list[str] = []
        for number, item in enumerate(items, 1):
            key = " ".join(self.typed(item, "key", place_of(number), str, "").split())
            if key and key in keys:
                message = gettext("key “%(key)s” is already used by %(other)s.")
                other = place_of(keys.index(key) + 1)
                self.error(place_of(number), message % {"key": key, "other": other})
            keys.append(key)
        return keys

    def model(self, instance: models.Model, place: str, exclude: list[str]) -> None:
        """Django's own field checks: lengths, URLs, slugs, choices, ranges."""
        # The untranslated attribute only mirrors one language: check each language's own.
        exclude = [*exclude, *translated_fields(type(instance))]
        try:
            instance.full_clean(exclude=exclude, validate_unique=False, validate_constraints=False)
        except ValidationError as error:
            for name, messages in error.message_dict.items():
                for message in messages:
                    self.error(place, f"{name}: {message}")

    def raise_if_any(self) -> None:
        if self.errors:
            raise QuizFileError(self.errors)


def _place_quiz() -> str:
    return gettext("quiz")


@dataclass
class _QuestionData:
    """A question of a checked file: `key` is "" when the file gives none."""

    position: int
    fields: dict
    choices: list[tuple[int, dict]]
    key: str = ""
    # A numerical question's (name, multiplier); None: as they are.
    units: tuple[tuple[str, Decimal], ...] | None = None


def _images_check(check: _FileChecker, images: dict[str, bytes]) -> None:
    """Each image of an archive is an image the site takes, and doesn't replace another one."""
    for name, data in images.items():
        place = ARCHIVE_IMAGES + posixpath.basename(name)
        try:
            extension = image_check(data=data)
        except ImageError as error:
            check.error(place, str(error))
            continue
        if not name.endswith("." + extension):
            message = gettext("this is a %(extension)s image: name it *.%(extension)s.")
            check.error(place, message % {"extension": extension})
        elif default_storage.exists(name):
            with default_storage.open(name, "rb") as stored:
                if stored.read() != data:
                    message = gettext("the site has another image under this name; rename it.")
                    check.error(place, message)


def _quiz_parse(
    data: dict, images: dict[str, bytes], *, render: bool
) -> tuple[dict, list[GuidePath], list[_QuestionData]]:
    """Check a whole quiz file without writing anything; raise QuizFileError listing it all."""
    check = _FileChecker(
        image_exists=lambda name: name in images or default_storage.exists(name), render=render
    )
    _images_check(check, images)
    place = _place_quiz()
    data = check.mapping(data, place, QUIZ_KEYS, {"slug", "title"})
    fields = {
        **check.texts(data, "title", place, required=True),
        **check.texts(data, "description", place, required=False),
        "level": check.typed(data, "level", place, str, Level.BEGINNER),
        "pass_mark": check.typed(data, "pass_mark", place, int, 70),
        "shuffle_choices": check.typed(data, "shuffle_choices", place, bool, False),
        "is_published": check.typed(data, "is_published", place, bool, False),
        "category": check.typed(data, "category", place, str, ""),
    }
    slug = check.typed(data, "slug", place, str, "")
    check.model(Quiz(slug=slug, **fields), place, exclude=[])

    slugs = check.items(data, "guide_paths", place)
    if not all(isinstance(item, str) for item in slugs):
        check.error(place, gettext("guide_paths must list guide path slugs."))
        slugs = []
    guides = list(GuidePath.objects.filter(slug__in=slugs))
    unknown = sorted(set(slugs) - {guide.slug for guide in guides})
    if unknown:
        message = gettext("guide_paths: unknown guide paths: %(slugs)s.")
        check.error(place, message % {"slugs": ", ".join(unknown)})

    items = [
        check.mapping(item, content_place(number), QUESTION_KEYS, {"prompt", "choices"})
        for number, item in enumerate(check.items(data, "questions", place), 1)
    ]
    if fields["is_published"] and not items:
        check.error(place, gettext("A published quiz needs at least one question."))
    questions = []
    positions = check.positions(items, content_place)
    keys = check.keys(items, content_place)
    for number, (item, position) in enumerate(zip(items, positions, strict=True), 1):
        question_place = content_place(number)
        question_fields = {
            "name": check.typed(item, "name", question_place, str, ""),
            **check.texts(item, "prompt", question_place, required=True),
            **check.texts(item, "explanation", question_place, required=False),
            **check.texts(item, "guide_url", question_place, required=False),
            "kind": check.typed(item, "kind", question_place, str, kinds.DEFAULT),
            "keep_choice_order": check.typed(
                item, "keep_choice_order", question_place, bool, False
            ),
            "grading": check.typed(item, "grading", question_place, str, kinds.Grading.ALL),
            "case_sensitive": check.typed(item, "case_sensitive", question_place, bool, False),
            "ignore_accents": check.typed(item, "ignore_accents", question_place, bool, False),
            "partial_credit": check.typed(item, "partial_credit", question_place, bool, False),
        }
        question_fields |= {
            "units_required": check.typed(item, "units_required", question_place, bool, False),
            "units_left": check.typed(item, "units_left", question_place, bool, False),
        }
        units = check.units(item, question_place, question_fields["kind"])
        key = keys[number - 1]
        question = Question(position=position, key=key or "-", **question_fields)
        check.model(question, question_place, ["quiz"])
        kind = kinds.KINDS.get(question_fields["kind"])
        # A matching question's distractor has no text (`Kind.texts_optional`).
        needs_text = not (kind and kind.texts_optional)
        choice_items = [
            check.mapping(
                choice,
                content_place(number, choice_number),
                CHOICE_KEYS,
                {"text"} if needs_text else set(),
            )
            for choice_number, choice in enumerate(check.items(item, "choices", question_place), 1)
        ]
        choice_positions = check.positions(
            choice_items, lambda choice_number, n=number: content_place(n, choice_number)
        )
        choices = []
        for choice_number, (choice_item, choice_position) in enumerate(
            zip(choice_items, choice_positions, strict=True), 1
        ):
            choice_place = content_place(number, choice_number)
            tolerance, relative = check.tolerance(choice_item, choice_place)
            choice_fields = {
                **check.texts(choice_item, "text", choice_place, required=needs_text),
                **check.texts(choice_item, "match", choice_place, required=False),
                **check.texts(choice_item, "feedback", choice_place, required=False),
                "is_correct": check.typed(choice_item, "correct", choice_place, bool, False),
                "tolerance": tolerance,
                "relative_tolerance": relative,
                "credit": check.number(choice_item, "credit", choice_place),
            }
            if "gap" in choice_item:
                choice_fields["gap"] = check.typed(choice_item, "gap", choice_place, int, 0)
            choice = Choice(position=choice_position, **choice_fields)
            default_text = build_localized_fieldname("text", settings.LANGUAGE_CODE)
            check.model(choice, choice_place, ["question", *([] if needs_text else [default_text])])
            choices.append((choice_position, choice_fields))
        correct = [choice["is_correct"] for _position, choice in choices]
        edited = [edited_choice(choice) for _position, choice in choices]
        variables = check.variables(item, question_place, kind)
        question_fields["variables"] = variables
        question_fields["gaps"] = check.gaps(item, question_place, kind)
        problems = [*kind.problems(correct), *kind.value_problems(edited)] if kind else []
        if kind and not problems:
            problems = kind.variable_problems(variables, edited)
        if kind and not problems:
            prompts = prompts_of(question_fields)
            problems = kind.gap_problems(question_fields["gaps"], prompts, edited)
        for problem in problems:
            check.error(question_place, problem)
        if kind and question_fields["partial_credit"] and not kind.several:
            check.error(question_place, str(PARTIAL_CREDIT_ONLY_SEVERAL))
        questions.append(_QuestionData(position, question_fields, choices, key, units))
    lengths = markdown_lengths(Quiz, fields)
    for question in questions:
        lengths += markdown_lengths(Question, question.fields)
        for _position, choice_fields in question.choices:
            lengths += markdown_lengths(Choice, choice_fields)
    for problem in quiz_length_problems(lengths):
        check.error(place, problem)
    check.raise_if_any()
    return {"slug": slug, **fields}, guides, questions


def guide_paths_check(*, data: dict) -> list[tuple[str, dict]]:
    """Check a whole guides file without writing: each guide path as (slug, model fields)."""
    check = _FileChecker()
    data = check.mapping(data, "", {"guide_paths"}, {"guide_paths"})
    parsed = []
    items = check.items(data, "guide_paths", "")
    for number, item in enumerate(items, 1):
        place = gettext("guide path %(number)s") % {"number": number}
        item = check.mapping(item, place, GUIDE_PATH_KEYS, {"slug", "title"})
        fields = {
            **check.texts(item, "title", place, required=True),
            **check.texts(item, "summary", place, required=False),
            "url": check.typed(item, "url", place, str, ""),
            "position": check.typed(item, "position", place, int, number),
            "is_published": check.typed(item, "is_published", place, bool, False),
        }
        slug = check.typed(item, "slug", place, str, "")
        check.model(GuidePath(slug=slug, **fields), place, exclude=[])
        parsed.append((slug, fields))
    check.raise_if_any()
    return parsed


def _texts_export(obj: models.Model) -> dict:
    """Every translated field that has a text, as {field: {language: text}}."""
    texts = {}
    for name in translated_fields(type(obj)):
        values = {
            code: getattr(obj, build_localized_fieldname(name, code))
            for code, _name in settings.LANGUAGES
        }
        values = {code: text for code, text in values.items() if text}
        if values:
            texts[name] = values
    return texts


def _variables_export(variables: list[dict]) -> list[dict]:
    """A question's variables as the file writes them: whole numbers as numbers (2), the
    others as the texts they are kept as ("0.5"), read back as they were."""

    def number(text):
        return int(text) if isinstance(text, str) and text.lstrip("-").isdigit() else text

    return [
        {
            key: [number(value) for value in item] if key == "values" else number(item)
            for key, item in variable.items()
        }
        for variable in variables
    ]


def quiz_export(*, quiz: Quiz) -> dict:
    """The quiz as the file importing.quiz_import reads: every language of every field."""
    questions = []
    questions_of = list(quiz.questions.prefetch_related("choices"))
    # Only numerical questions have units: a quiz without one reads none.
    prefetch_related_objects([q for q in questions_of if q.kind == Numerical.name], "units")
    for number, question in enumerate(questions_of, 1):
        item = {"key": question.key}
        if question.name:
            item["name"] = question.name
        if question.position != number:
            item["position"] = question.position
        if question.kind != kinds.DEFAULT:
            item["kind"] = question.kind
        if question.keep_choice_order:
            item["keep_choice_order"] = True
        if question.grading != kinds.Grading.ALL:
            item["grading"] = question.grading
        for option in ("case_sensitive", "ignore_accents"):
            if getattr(question, option):
                item[option] = True
        if question.partial_credit:
            item["partial_credit"] = True
        if question.variables:
            item["variables"] = _variables_export(question.variables)
        if question.gaps:
            item["gaps"] = list(question.gaps)
        item |= _texts_export(question)
        units = [
            {
                "name": unit.name,
                **({"multiplier": plain(unit.multiplier)} if unit.multiplier != 1 else {}),
            }
            for unit in (question.units.all() if question.kind == Numerical.name else ())
        ]
        if units:
            item["units"] = units
        for name in ("units_required", "units_left"):
            if getattr(question, name):
                item[name] = True
        choices = []
        for choice_number, choice in enumerate(question.choices.all(), 1):
            choice_item = {"position": choice.position} if choice.position != choice_number else {}
            if choice.gap:
                choice_item["gap"] = choice.gap
            choice_item |= _texts_export(choice)
            choice_item["correct"] = choice.is_correct
            if choice.tolerance:
                percent = "%" if choice.relative_tolerance else ""
                choice_item["tolerance"] = plain(choice.tolerance) + percent
            if choice.credit:
                choice_item["credit"] = plain(choice.credit)
            choices.append(choice_item)
        item["choices"] = choices
        questions.append(item)
    return {
        "slug": quiz.slug,
        "level": quiz.level,
        "pass_mark": quiz.pass_mark,
        "shuffle_choices": quiz.shuffle_choices,
        "is_published": quiz.is_published,
        "guide_paths": [guide.slug for guide in quiz.guide_paths.order_by("slug")],
        **({"category": quiz.category} if quiz.category else {}),
        **_texts_export(quiz),
        "questions": questions,
    }


def quiz_file_check(
    *, data: dict, images: dict[str, bytes] | None = None, texts_rendered: bool = False
) -> tuple[dict, list[GuidePath], list[_QuestionData]]:
    """Check a whole quiz file without writing: its quiz fields, guide paths and questions,
    with the images (by storage name) that come with it. `texts_rendered`: its texts were
    rendered and found right already (text_problems' `render`)."""
    return _quiz_parse(data, images or {}, render=not texts_rendered)


def guide_paths_export() -> dict:
    """Every guide path as the guides file importing.guide_paths_import reads."""
    guide_paths = []
    for guide in GuidePath.objects.order_by("position", "slug"):
        item = {"slug": guide.slug, "position": guide.position, "is_published": guide.is_published}
        if guide.url:
            item["url"] = guide.url
        guide_paths.append(item | _texts_export(guide))
    return {"guide_paths": guide_paths}
