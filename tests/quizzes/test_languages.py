import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests.factories import answer, choice_of, make_quiz, question_url, results_url, start


def test_root_redirects_by_accept_language(client, db):
    assert client.get("/", HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9")["Location"] == "/fr/"
    assert client.get("/", HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.9")["Location"] == "/en/"
    assert client.get("/", HTTP_ACCEPT_LANGUAGE="de")["Location"] == "/en/"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_html_lang_and_hreflang_alternates(client, quiz, lang):
    html = client.get(f"/{lang}/quizzes/dp-quiz/").content.decode()
    assert f'<html lang="{lang}">' in html
    for code in ("en", "fr"):
        url = f"http://testserver/{code}/quizzes/dp-quiz/"
        assert f'<link rel="alternate" hreflang="{code}" href="{url}">' in html


def test_switcher_keeps_the_learner_on_the_same_question(client, quiz):
    attempt = start(client, quiz)
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    english = client.get(question_url(attempt, 2)).content.decode()
    french_url = question_url(attempt, 2, "fr")
    assert f'href="{french_url}" hreflang="fr" lang="fr"' in english
    french = client.get(french_url).content.decode()
    assert "Question 2 sur 8" in french
    assert "Énoncé de la question 2" in french
    answer(client, attempt, 2, choice_of(quiz, 2, correct=True), lang="fr")
    attempt.refresh_from_db()
    assert attempt.answers.count() == 2
    assert attempt.language == "en"


def test_missing_french_falls_back_to_english_marked_lang_en(client, guide):
    quiz = make_quiz(slug="half", questions=2, french=False, guide=guide)
    question = quiz.questions.get(position=1)
    question.prompt_fr = "Énoncé traduit"
    question.save()
    attempt = start(client, quiz, "fr")
    html = client.get(question_url(attempt, 1, "fr")).content.decode()
    assert '<div class="prompt rich" id="prompt"><p>Énoncé traduit</p>\n</div>' in html
    tag = ' <span class="fallback-tag" lang="fr">en anglais</span>'
    assert re.search(rf'<label for="choice-\d+" lang="en">Q1 choice 1{tag}</label>', html)
    landing = client.get("/fr/quizzes/half/").content.decode()
    assert f'<h1 lang="en">Data parallelism quiz{tag}</h1>' in landing
    assert f'<li class="rich" lang="en"><p>Question 2 prompt</p>\n{tag}</li>' in landing
    assert '<li class="rich"><p>Énoncé traduit</p>\n</li>' in landing
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True), lang="fr")
    feedback = client.get(question_url(attempt, 1, "fr")).content.decode()
    explanation = (
        f'<div class="explanation rich" lang="en"><p>Explanation 1 in English.</p>\n{tag}</div>'
    )
    assert explanation in feedback


def test_markdown_renders_on_every_learner_page(client, guide):
    quiz = make_quiz(slug="md", questions=1, guide=guide)
    quiz.description_en = "Uses `model.no_sync()` and $B \\times W$."
    quiz.save()
    question = quiz.questions.get()
    question.prompt_en = "What does `optimizer.zero_grad()` do?"
    question.explanation_en = (
        "```python\nfor i, batch in enumerate(loader):\n    loss.backward()\n```"
    )
    question.save()
    landing = client.get("/en/quizzes/md/").content.decode()
    assert "<code>model.no_sync()</code>" in landing and "<math" in landing
    assert "<li><code>optimizer.zero_grad()</code>" not in landing
    assert "What does <code>optimizer.zero_grad()</code> do?" in landing
    attempt = start(client, quiz)
    page = client.get(question_url(attempt, 1)).content.decode()
    prompt = "<p>What does <code>optimizer.zero_grad()</code> do?</p>"
    assert f'<div class="prompt rich" id="prompt">{prompt}\n</div>' in page
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True))
    feedback = client.get(question_url(attempt, 1)).content.decode()
    assert '<pre class="code-block" tabindex="0"><code><span class="k">for</span>' in feedback
    assert '    <span class="n">loss</span>' in feedback  # Indentation kept.
    home = client.get("/en/").content.decode()
    assert "<code>model.no_sync()</code>" in home


def test_french_content_is_not_marked(client, quiz):
    html = client.get("/fr/quizzes/dp-quiz/").content.decode()
    assert "<h1>Quiz sur le parallélisme des données</h1>" in html
    assert 'lang="en">' not in html.replace('hreflang="en" lang="en">', "")


@pytest.mark.parametrize("code", [code for code, _name in settings.LANGUAGES if code != "en"])
def test_catalogue_is_complete(code):
    po = Path(settings.BASE_DIR, "locale", code, "LC_MESSAGES", "django.po")
    for flag in ("--untranslated", "--only-fuzzy"):
        result = subprocess.run(
            ["msgattrib", flag, "--no-obsolete", str(po)],
            capture_output=True,
            text=True,
            check=True,
        )
        assert result.stdout == "", f"{po} has entries that are {flag.strip('-')}"


def test_french_pages_space_their_punctuation_and_percentages(client, editor_client, guide):
    quiz = make_quiz(slug="fr-quiz", questions=1, guide=guide, published=False)
    landing = editor_client.get("/fr/quizzes/fr-quiz/").content.decode()
    assert "<dd>70\u202f%</dd>" in landing
    assert "<strong>Aperçu, non publié\u00a0:</strong>" in landing
    english = editor_client.get("/en/quizzes/fr-quiz/").content.decode()
    assert "<dd>70%</dd>" in english and "<strong>Preview, not published:</strong>" in english
    quiz.is_published = True
    quiz.save()
    attempt = start(client, quiz, "fr")
    answer(client, attempt, 1, choice_of(quiz, 1, correct=True), lang="fr")
    results = client.get(results_url(attempt, "fr")).content.decode()
    assert "(100\u202f%)" in results and "est de 70\u202f%." in results


def test_the_quiz_cards_keep_the_no_break_spaces_of_their_description(client, guide):
    make_quiz(guide=guide, questions=1, description_fr="Le lot : un mot ; une question ? " * 5)
    for page in ("/fr/", f"/fr/guides/{guide.slug}/"):
        html = client.get(page).content.decode()
        assert "lot\u00a0: un mot\u202f; une question\u202f?" in html
        assert "lot :" not in html and "mot ;" not in html
        assert "…" in html  # Cut at 30 words, the punctuation kept with its word.


def test_no_learner_template_truncates_with_djangos_filters():
    templates = Path(settings.BASE_DIR, "templates")
    learner = [path for path in templates.rglob("*.html") if "admin" not in path.parts]
    assert learner
    for path in learner:
        assert "truncatewords" not in path.read_text(), path  # It loses no-break spaces.


# What `make messages` leaves out of the catalogue (Makefile).
NOT_SCANNED = (".venv", ".venv-django6", "node_modules", "var", "tests")


def _entries(po: Path) -> dict[tuple[str, str], str]:
    """The catalogue's entries but obsolete ones, {(context, msgid): msgstr}: a fuzzy one's
    msgstr as ""."""
    entries, entry, field = {}, {}, None
    for line in [*po.read_text().splitlines(), ""]:
        if not line:
            if "msgid" in entry and entry["msgid"] and "fuzzy" not in entry.get("flags", ""):
                entries[entry.get("msgctxt", ""), entry["msgid"]] = entry.get("msgstr", "")
            elif entry.get("msgid"):
                entries[entry.get("msgctxt", ""), entry["msgid"]] = ""
            entry, field = {}, None
        elif line.startswith("#,"):
            entry["flags"] = line
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            entry[field] += line[1:-1]
        else:
            field, _space, value = line.partition(" ")
            field = field.split("[")[0]  # msgstr[0], msgstr[1]: the first kept.
            entry.setdefault(field, value[1:-1])
    return entries


@pytest.mark.parametrize("code", [code for code, _name in settings.LANGUAGES if code != "en"])
def test_the_catalogue_is_what_make_messages_makes_of_the_code(code, tmp_path):
    """`make messages` run on a copy of the project adds no text the catalogue lacks (it
    would show in English) and drops none of it (a text marked by a name makemessages
    doesn't know, which its next run would take out)."""
    copy = tmp_path / "project"
    shutil.copytree(
        settings.BASE_DIR,
        copy,
        ignore=shutil.ignore_patterns(*NOT_SCANNED, ".git", "__pycache__", "*.mo"),
        symlinks=True,
    )
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", code, "--no-obsolete", "--no-wrap"]
        + [f"--ignore={name}" for name in NOT_SCANNED],
        cwd=copy,
        capture_output=True,
        check=True,
    )
    kept = _entries(Path(settings.BASE_DIR, "locale", code, "LC_MESSAGES", "django.po"))
    made = _entries(copy / "locale" / code / "LC_MESSAGES" / "django.po")
    assert sorted(kept.keys() - made.keys()) == [], "in the catalogue, not found in the code"
    assert sorted(key for key, text in made.items() if not text) == [], "not translated"
