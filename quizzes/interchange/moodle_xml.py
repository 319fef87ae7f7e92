"""Moodle XML, read into quiz-file dicts and written from them.

Moodle XML is what Moodle's question bank exports with the files (images) that
its texts use. It is read with defusedxml: a file that declares entities
(billion laughs) or refers to outside ones is refused before any is expanded.
The kinds of questions this site has are read (multichoice, truefalse); each
question of another type is refused on its own, and the rest is read.
"""

import base64
import binascii
import hashlib
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

import defusedxml
import defusedxml.ElementTree
from django.utils.translation import gettext

from quizzes import kinds
from quizzes.interchange import moodle_common as common
from quizzes.interchange.moodle_common import MAX_QUESTIONS, ContentFileError, Origin, Parsed
from quizzes.interchange.quizfile import ARCHIVE_IMAGES
from quizzes.kinds.choices import weight_text

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_QUESTIONS",
    "MAX_TAGS",
    "ContentFileError",
    "Parsed",
    "moodle_xml_export",
    "moodle_xml_export_quizzes",
    "moodle_xml_parse",
]

MAX_BYTES = 20 * 2**20  # Base64 images make Moodle XML files bigger than GIFT ones.
MAX_DEPTH = 32  # Moodle nests 5 deep (quiz, question, answer, feedback, text).
MAX_TAGS = 500_000  # Counted as "<" before parsing: 5,000 questions take about 250,000.

_FORMATS = {
    "html": common.FORMAT_HTML,
    "markdown": common.FORMAT_MARKDOWN,
    "moodle_auto_format": common.FORMAT_PLAIN,
    "plain_text": common.FORMAT_PLAIN,
}
_DECLARED_ENCODING = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._-]+)")
_SAFE_NAME = re.compile(r"[^\x00-\x1f\\]+")
_LOST = ("correctfeedback", "partiallycorrectfeedback", "incorrectfeedback", "hint")


class _Parser(defusedxml.ElementTree.DefusedXMLParser):
    """Refuses a document type only when it refers to an outside one: the entities
    declared inside one are then refused one by one, with their name."""

    def defused_start_doctype_decl(self, name, sysid, pubid, has_internal_subset):
        if sysid or pubid:
            super().defused_start_doctype_decl(name, sysid, pubid, has_internal_subset)


def _root(content: bytes) -> ET.Element:
    """The parsed file, or ContentFileError saying what in it is refused and where."""
    declared = _DECLARED_ENCODING.match(content)
    if declared and declared.group(1).lower() not in (b"utf-8", b"utf8"):
        message = gettext("The file declares the encoding %(encoding)s; only UTF-8 is read.")
        raise ContentFileError([("", message % {"encoding": declared.group(1).decode()})])
    common.utf8_decode(content)
    tags = content.count(b"<")
    if tags > MAX_TAGS:
        message = gettext("The file has %(count)s tags; at most %(limit)s are read.")
        raise ContentFileError([("", message % {"count": tags, "limit": MAX_TAGS})])
    try:
        parser = _Parser(target=ET.TreeBuilder(), forbid_dtd=True)
        parser.feed(content)
        root = parser.close()
    except defusedxml.EntitiesForbidden as error:
        message = gettext(
            "The XML declares the entity %(name)s: entities are refused, "
            "as they can expand without end or read other files."
        )
        raise ContentFileError([("", message % {"name": error.name})]) from None
    except (defusedxml.ExternalReferenceForbidden, defusedxml.DTDForbidden) as error:
        message = gettext("The XML refers to the outside document %(document)s: that is refused.")
        document = error.sysid or error.pubid
        raise ContentFileError([("", message % {"document": document})]) from None
    except defusedxml.DefusedXmlException:
        raise ContentFileError([("", gettext("The XML uses a feature that is refused."))]) from None
    except ET.ParseError as error:
        line, _column = error.position
        problem = re.sub(r": line \d+, column \d+$", "", str(error))
        message = gettext("broken XML: %(problem)s.") % {"problem": problem}
        raise ContentFileError([(gettext("line %(line)s") % {"line": line}, message)]) from None
    elements = [(root, 1)]
    while elements:
        element, depth = elements.pop()
        if depth > MAX_DEPTH:
            message = gettext("The XML nests elements more than %(depth)s deep (<%(tag)s>).")
            raise ContentFileError([("", message % {"depth": MAX_DEPTH, "tag": element.tag})])
        elements.extend((child, depth + 1) for child in element)
    if root.tag != "quiz":
        message = gettext("This is not Moodle XML: its first element is <%(tag)s>, not <quiz>.")
        raise ContentFileError([("", message % {"tag": root.tag})])
    return root


def _place(number: int, name: str) -> str:
    """Where a question is: "question 4", or "question 4 (“Name”)" with its Moodle name."""
    if name:
        message = gettext("question %(number)s (“%(name)s”)")
        return message % {"number": number, "name": name}
    return gettext("question %(number)s") % {"number": number}


@dataclass
class _Reader:
    language: str
    quizzes: common.QuizCollector
    problems: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    images: dict[str, bytes] = field(default_factory=dict)
    # Each file (name, digest) read so far and the name it is stored under.
    stored: dict[tuple[str, bytes], str] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)
    numbers: dict[str, int] = field(default_factory=dict)

    def question(self, element: ET.Element, number: int) -> None:
        moodle_type = element.get("type", "")
        name = (element.findtext("name/text") or "").strip()
        place = _place(number, name)
        kind = kinds.moodle_reader(moodle_type)
        if kind is None:
            return self.problems.append((place, common.type_refused(moodle_type, named=True)))
        problem = common.too_long(
            max((len(text.text or "") for text in element.iter("text")), default=0)
        )
        problem = problem or common.too_many_answers(len(element.findall("answer")))
        if problem:
            return self.problems.append((place, problem))
        files = self.files(element, place)
        if files is None:
            return None
        old_image = self.old_image(element, place, files)
        if old_image is None:
            return None
        texts = _Texts(reader=self, place=place, files=files, fields=_fields(element))
        question_text = element.find("questiontext")
        question = {"prompt": texts.text(question_text, kind.moodle_prompt)}
        if old_image:
            texts.used.add(old_image)
            message = gettext(
                "the image “%(name)s” (Moodle 1.9's <image>) has no alt text: its file name "
                "is its alt text; write what it shows."
            )
            texts.warnings.append((place, message % {"name": old_image}))
            shown = f"![{common.markdown_escape(old_image, at_line_start=False)}]"
            shown += f"({common.image_reference(files[old_image][0])})"
            question["prompt"] = {
                code: f"{text}\n\n{shown}".strip()
                for code, text in (question["prompt"] or {self.language: ""}).items()
            }
        # As in Moodle, the other texts of a question are in its text's format unless they say.
        if question_text is not None:
            texts.default_format = _FORMATS.get(
                question_text.get("format", ""), common.FORMAT_PLAIN
            )
        explanation = texts.text(element.find("generalfeedback"))
        if explanation:
            question["explanation"] = explanation
        read = kind.moodle_read(element, texts)
        if read.problem:
            return self.problems.append((place, read.problem))
        if texts.missing:
            return self.problems.extend(texts.missing)
        question |= read.fields
        self.warnings += [(place, warning) for warning in read.warnings]
        lost = [
            tag
            for tag in _LOST
            if any("".join(found.itertext()).strip() for found in element.findall(tag))
        ]
        if lost:
            message = gettext("not kept: Moodle's %(parts)s.")
            self.warnings.append((place, message % {"parts": ", ".join(lost)}))
        self.warnings += texts.warnings
        for reference, (stored, content) in files.items():
            if reference in texts.used:
                self.images[stored] = content
            else:
                message = gettext("the file “%(name)s” is shown by no text: not kept.")
                self.warnings.append((place, message % {"name": reference}))
        idnumber = (element.findtext("idnumber") or "").strip()
        if idnumber or name:
            question["key"] = idnumber or name
        if name and name != question["key"]:
            question["name"] = name
        self.quizzes.add(question, Origin(place=place, name=name))
        return None

    def files(self, element: ET.Element, place: str) -> dict[str, tuple[str, bytes]] | None:
        """The question's files: {name in its texts: (name in `images`, content)}.

        Moodle names files per text, so two questions often both have an
        "image.png": the second one that differs is stored as "image-2.png".
        """
        files = {}
        for file in element.iter("file"):
            name = (file.get("path") or "/").strip("/") + "/" + (file.get("name") or "")
            name = name.strip("/")
            parts = name.split("/")
            if not _SAFE_NAME.fullmatch(name) or any(part in ("", ".", "..") for part in parts):
                message = gettext("the file name “%(name)s” is refused.")
                self.problems.append((place, message % {"name": name}))
                return None
            try:
                content = base64.b64decode(file.text or "")
            except binascii.Error:
                message = gettext("the file “%(name)s” is not valid base64.")
                self.problems.append((place, message % {"name": name}))
                return None
            files[name] = (self.stored_name(name, content, files), content)
        return files

    def old_image(self, element: ET.Element, place: str, files: dict) -> str | None:
        """The name in `files` of the Moodle 1.9 image of a question (<image> and
        <image_base64>), which shows after its prompt; "" when it has none, None when it is
        refused. It has no alt text: its file name is it, with a warning."""
        name = (element.findtext("image") or "").strip()
        if not name:
            return ""
        name = name.replace("/", "_")
        encoded = (element.findtext("image_base64") or "").strip()
        if not encoded:
            message = gettext(
                "the image “%(name)s” (Moodle 1.9's <image>) is not in the file: it has no "
                "<image_base64>."
            )
            self.problems.append((place, message % {"name": name}))
            return None
        if not _SAFE_NAME.fullmatch(name) or name in (".", ".."):
            message = gettext("the file name “%(name)s” is refused.")
            self.problems.append((place, message % {"name": name}))
            return None
        try:
            content = base64.b64decode(encoded)
        except binascii.Error:
            message = gettext("the file “%(name)s” is not valid base64.")
            self.problems.append((place, message % {"name": name}))
            return None
        files[name] = (self.stored_name(name, content, files), content)
        return name

    def stored_name(self, name: str, content: bytes, files: dict) -> str:
        """`name`, or "name-2.png" when another file already has that name."""
        key = (name, hashlib.sha256(content).digest())
        if key in self.stored:
            return self.stored[key]
        in_question = {stored for stored, _content in files.values()}
        stem, dot, extension = name.rpartition(".")
        if not dot:
            stem, extension = name, ""
        stored, number = name, self.numbers.get(name, 1)
        if number > 1:
            stored = f"{stem}-{number}{dot}{extension}"
        while stored in self.names or stored in in_question:
            number += 1
            stored = f"{stem}-{number}{dot}{extension}"
        self.numbers[name] = number
        self.stored[key] = stored
        self.names.add(stored)
        return stored


@dataclass
class _Texts:
    """Reads a question's texts as Markdown, its files' references as ours (for its kind,
    quizzes.kinds.base.MoodleReading)."""

    reader: _Reader
    place: str
    files: dict[str, tuple[str, bytes]]
    # The place and field of each element whose text is read: (", choice 2", "feedback").
    fields: dict[int, tuple[str, str]] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)  # Files the file lacks.
    default_format: str = common.FORMAT_PLAIN
    reading: tuple[str, str] = ("", "")  # The place and field of the text being read.

    @property
    def language(self) -> str:
        return self.reader.language

    def image_src(self, reference: str) -> str:
        name = common.pluginfile_name(reference)
        if name not in self.files:
            where, field_name = self.reading
            message = gettext(
                "%(field)s (%(language)s): the file “%(name)s” is not in the file: Moodle writes "
                "each file a text shows as a <file> of that text."
            )
            values = {"field": field_name, "language": self.language, "name": name}
            self.missing.append((self.place + where, message % values))
            return common.image_reference(name)
        self.used.add(name)
        return common.image_reference(self.files[name][0])

    def text(self, element: ET.Element | None, read_as: Callable | None = None) -> dict[str, str]:
        """The text of `element` (its <text>, in its format) as {language: Markdown};
        `read_as(text, read)`, where given, reads it with `read` (a kind's `moodle_prompt`)."""
        if element is None:
            return {}
        self.reading = self.fields.get(id(element), ("", element.tag))
        text_format = _FORMATS.get(element.get("format", ""), self.default_format)

        def read(text: str) -> dict[str, str]:
            texts, dropped = common.to_markdown_texts(
                text, text_format, language=self.reader.language, image_src=self.image_src
            )
            if dropped:
                message = gettext("HTML tags dropped, their text kept: %(tags)s.")
                self.warnings.append((self.place, message % {"tags": ", ".join(dropped)}))
            return texts

        source = element.findtext("text") or ""
        return read_as(source, read) if read_as else read(source)


def moodle_xml_parse(
    content: bytes | str, *, language: str, quiz_slug: str | None = None
) -> Parsed:
    """Read a Moodle XML file into quiz-file dicts whose texts are in `language`.

    Each category starts a quiz, named after its last part, described by its
    info; with `quiz_slug`, every question goes into that one quiz instead.
    Questions are numbered from 1 in the file's order, categories left out.
    Questions that can't be imported are left out and listed in `problems`; the
    file as a whole is refused (ContentFileError) when it is too big, not UTF-8,
    not well-formed, nested too deep or declares entities.
    """
    common.language_check(language)
    if isinstance(content, str):
        common.size_check(len(content), MAX_BYTES)
        content = content.encode("utf-8", "surrogatepass")
    common.size_check(len(content), MAX_BYTES)
    root = _root(content)
    quizzes = common.QuizCollector(language=language, quiz_slug=quiz_slug)
    reader = _Reader(language=language, quizzes=quizzes)
    questions = root.findall("question")
    common.questions_check(sum(element.get("type") != "category" for element in questions))
    number = 0
    for element in questions:
        if element.get("type") == "category":
            path = (element.findtext("category/text") or "").strip()
            info = element.find("info")
            description = ""
            if info is not None:
                text_format = _FORMATS.get(info.get("format", ""), common.FORMAT_PLAIN)
                description = common.to_markdown(info.findtext("text") or "", text_format).text
            quizzes.category(path, description)
            continue
        number += 1
        reader.question(element, number)
    return Parsed(
        quizzes=quizzes.quizzes(),
        origins=quizzes.origins(),
        problems=reader.problems,
        warnings=reader.warnings,
        images=reader.images,
    )


def _fields(element: ET.Element) -> dict[int, tuple[str, str]]:
    """Where each text of a question goes, by its element: ("", "prompt"), (", choice 2",
    "text")…, as the messages name them."""
    fields = {}
    question_text, general = element.find("questiontext"), element.find("generalfeedback")
    if question_text is not None:
        fields[id(question_text)] = ("", "prompt")
    if general is not None:
        fields[id(general)] = ("", "explanation")
    for number, answer in enumerate(element.findall("answer"), 1):
        where = common.choice_where(number)
        fields[id(answer)] = (where, "text")
        feedback = answer.find("feedback")
        if feedback is not None:
            fields[id(feedback)] = (where, "feedback")
    return fields


_IMAGE_REFERENCE = re.compile(r"\]\(" + re.escape(ARCHIVE_IMAGES) + r"([^)\s]+)\)")


@dataclass
class _Writer:
    """Writes questions and their texts (for their kinds, quizzes.kinds.base.MoodleWriting)."""

    language: str
    images: dict[str, bytes]

    def text(self, parent: ET.Element, tag: str, text: str, **attributes) -> ET.Element:
        """<tag format="markdown"><text>…</text><file …/></tag>, the images it shows inside."""
        element = ET.SubElement(parent, tag, {**attributes, "format": "markdown"})
        names = []

        def reference(match: re.Match) -> str:
            name = unquote(match.group(1))
            if name not in self.images:
                return match.group()
            names.append(name)
            return f"](@@PLUGINFILE@@/{quote(name)})"

        ET.SubElement(element, "text").text = _IMAGE_REFERENCE.sub(reference, text)
        for name in dict.fromkeys(names):
            path, _slash, file_name = name.rpartition("/")
            file = ET.SubElement(
                element,
                "file",
                {"name": file_name, "path": f"/{path}/" if path else "/", "encoding": "base64"},
            )
            file.text = base64.b64encode(self.images[name]).decode("ascii")
        return element

    def question(self, parent: ET.Element, question: dict) -> None:
        prompt = self.plain(question.get("prompt"))
        kind = kinds.get(question.get("kind", kinds.DEFAULT)).exported_as(question, self)
        element = ET.SubElement(parent, "question", {"type": kind.moodle_type})
        name = question.get("name") or question.get("key") or _name(prompt)
        ET.SubElement(ET.SubElement(element, "name"), "text").text = name
        self.text(element, "questiontext", prompt)
        self.text(element, "generalfeedback", self.plain(question.get("explanation")))
        ET.SubElement(element, "defaultgrade").text = "1"
        ET.SubElement(element, "penalty").text = kind.moodle_penalty
        ET.SubElement(element, "hidden").text = "0"
        if question.get("key"):
            ET.SubElement(element, "idnumber").text = question["key"]
        kind.moodle_write(element, question, self)

    def plain(self, value) -> str:
        return common.text_in(value, self.language)

    def answer(self, parent: ET.Element, choice: dict, weight: float, name: str | None) -> None:
        fraction = {"fraction": weight_text(weight)}
        if name is None:
            text = common.text_in(choice.get("text"), self.language)
            answer = self.text(parent, "answer", text, **fraction)
        else:
            answer = ET.SubElement(parent, "answer", {**fraction, "format": "moodle_auto_format"})
            ET.SubElement(answer, "text").text = name
        self.text(answer, "feedback", common.text_in(choice.get("feedback"), self.language))


def _name(prompt: str) -> str:
    """A question's Moodle name, which Moodle requires: its prompt's start, as Moodle makes."""
    first = " ".join(re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", prompt).split())
    return first if len(first) <= 80 else first[:79].rstrip() + "…"


def moodle_xml_export(
    data: dict, *, language: str, images: dict[str, bytes] | None = None
) -> bytes:
    """A quiz-file dict as Moodle XML, its texts in `language` as Markdown.

    The quiz becomes a category named after its title, with its description as
    the category's info; `images` are the files that texts show as
    `images/NAME`, written with the texts that show them. Reading the file back
    gives the same questions. Moodle XML has no place for the quiz's level, pass
    mark, guide paths and shuffling (a Moodle quiz's own setting: a question's
    <shuffleanswers> says only whether it may be shuffled, its `keep_choice_order`
    negated), the questions' guide URLs, or the other languages. A
    true-or-false question whose choices are not named True and False in
    `language` is written as a single-choice one.
    """
    return moodle_xml_export_quizzes([data], language=language, images=images)


def moodle_xml_export_quizzes(
    quizzes: list[dict], *, language: str, images: dict[str, bytes] | None = None
) -> bytes:
    """Several quiz-file dicts in one Moodle XML file, as moodle_xml_export writes one: a
    category each, which reads back as one quiz each."""
    common.language_check(language)
    writer = _Writer(language=language, images=images or {})
    root = ET.Element("quiz")
    for data in quizzes:
        category = ET.SubElement(root, "question", {"type": "category"})
        path = common.category_path(data, language)
        ET.SubElement(ET.SubElement(category, "category"), "text").text = path
        description = common.text_in(data.get("description"), language)
        if description:
            writer.text(category, "info", description)
        for question in data.get("questions", []):
            writer.question(root, question)
    ET.indent(root)
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True) + b"\n"
