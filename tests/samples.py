"""Sample files shared by the import tests: every construct of GIFT and of Moodle XML."""

import base64

GIFT_EVERY_CONSTRUCT = r"""// A comment line, and another one inside a question below.
$CATEGORY: $course$/top/Networks

::Ports::Which port does HTTP use? {
  =80 # Right: port 80.
  ~21 # That is FTP.
  ~443
  #### Port 443 is HTTPS.
}

::Weights:: Which are transport protocols? {
// Inside a question.
  ~%50%TCP #Yes.
  ~%50%UDP
  ~%-100%IP #No: that is the network layer.
}

TCP is reliable.{T}

UDP is reliable.{F}

::TF feedback::IP is a transport protocol.{FALSE#No, it is not.#Right.####IP is the network layer.}

The loopback address is 127.0.0.1.{TRUE}

Escapes\: \~ \= \# \{ \} and a\nnew line, and a backslash \\ here.{=right \= yes ~wrong}

[markdown]Is **this** Markdown?{=Yes, *kept* as is ~No}

[html]<p>Is <b>this</b> <i>HTML</i> with <code>code</code>,
a <a href="https://example.org/">link</a><br>and
<img src="https://example.org/a.png" alt="a picture">?</p>
<ul><li>one</li><li>two</li></ul><ol><li>first</li></ol><pre>x = 1
y = 2</pre><p><span style="color: red">Red</span> <font>text</font>.</p>{=Yes ~No}

[moodle]Is 2 * 3 = 6 in [plain] text_like_this?{=Yes ~No}

[plain]# Not a heading, and <b>not bold</b>{=Yes ~No}

$CATEGORY: $course$/top/Maths

What is 2 + 2? {#4}

Who is buried in Grant's tomb?{=Grant =Ulysses S. Grant}

Match them.{=cat -> cat food =dog -> dog food}

Write an essay.{}

Grant is {~buried =entombed ~living} in Grant's tomb.

A description, with no answers at all.

Two lines
with an unclosed { =a ~b

$CATEGORY: $course$/top/Networks

::Back::Back in Networks?{=Yes ~No}
"""


PNG = b"\x89PNG\r\n\x1a\n one"
OTHER_PNG = b"\x89PNG\r\n\x1a\n two"


def b64(content: bytes) -> str:
    return base64.b64encode(content).decode()


MOODLE_XML_EVERY_CONSTRUCT = f"""<?xml version="1.0" encoding="UTF-8"?>
<quiz>
<!-- question: 0  -->
  <question type="category">
    <category><text>$course$/top/Default for Course/Networks</text></category>
    <info format="html"><text><![CDATA[<p>About <b>networks</b>.</p>]]></text></info>
  </question>
  <question type="multichoice">
    <name><text>Ports</text></name>
    <questiontext format="html">
      <text><![CDATA[<p>Which port? <img src="@@PLUGINFILE@@/port%20map.png" alt="Port map"
        width="10"></p>]]></text>
      <file name="port map.png" path="/" encoding="base64">{b64(PNG)}</file>
    </questiontext>
    <generalfeedback format="html">
      <text><![CDATA[<p>Port <code>80</code>, see <span>RFC</span>.</p>]]></text>
    </generalfeedback>
    <defaultgrade>1.0000000</defaultgrade>
    <single>true</single>
    <shuffleanswers>true</shuffleanswers>
    <correctfeedback format="html"><text>Well done</text></correctfeedback>
    <partiallycorrectfeedback format="html"><text></text></partiallycorrectfeedback>
    <answer fraction="100" format="html">
      <text>80</text>
      <feedback format="html"><text><![CDATA[<p>Yes: <i>HTTP</i>.</p>]]></text></feedback>
    </answer>
    <answer fraction="0" format="html"><text>21</text><feedback><text></text></feedback></answer>
    <answer fraction="0" format="html"><text>443</text></answer>
  </question>
  <question type="shortanswer"><name><text>SA</text></name></question>
  <question type="multichoice">
    <name><text>Weights</text></name>
    <questiontext format="markdown"><text>Which are *transport* protocols?
![diagram](@@PLUGINFILE@@/port%20map.png)</text>
      <file name="port map.png" path="/" encoding="base64">{b64(OTHER_PNG)}</file>
      <file name="unused.png" path="/" encoding="base64">{b64(PNG)}</file>
    </questiontext>
    <single>false</single>
    <answer fraction="50" format="plain_text"><text>TCP *</text></answer>
    <answer fraction="50" format="moodle_auto_format"><text>UDP</text></answer>
    <answer fraction="-100" format="html"><text>IP</text>
      <feedback format="markdown"><text>The **network** layer.</text></feedback></answer>
    <hint format="html"><text>Think layers.</text></hint>
  </question>
  <question type="numerical"><name><text>Num</text></name></question>
  <question type="category">
    <category><text>$course$/top/Truths</text></category>
  </question>
  <question type="truefalse">
    <name><text>TF</text></name>
    <questiontext format="moodle_auto_format"><text>TCP is reliable &amp; ordered</text>
    </questiontext>
    <generalfeedback format="moodle_auto_format"><text>It retransmits.</text></generalfeedback>
    <answer fraction="100" format="moodle_auto_format"><text>true</text>
      <feedback><text>Right</text></feedback></answer>
    <answer fraction="0" format="moodle_auto_format"><text>false</text>
      <feedback><text>Wrong</text></feedback></answer>
  </question>
  <question type="truefalse">
    <name><text>TF2</text></name>
    <idnumber>tf-2</idnumber>
    <questiontext format="html"><text><![CDATA[<p>UDP is reliable <img
      src="@@PLUGINFILE@@/missing.png"></p>]]></text></questiontext>
    <answer fraction="0"><text>true</text></answer>
    <answer fraction="100"><text>false</text></answer>
  </question>
  <question type="match"><name><text>Match</text></name></question>
  <question type="essay"><name><text>Essay</text></name></question>
  <question type="cloze"><name><text>Cloze</text></name></question>
  <question type="ddwtos"><name><text>Drag</text></name></question>
  <question type="description"><name><text></text></name></question>
</quiz>
""".encode()
