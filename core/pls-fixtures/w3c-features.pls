<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0"
      xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"
      alphabet="ipa" xml:lang="en-GB">
  <meta name="author" content="studio tests"/>
  <lexeme role="noun">
    <grapheme>W3C</grapheme>
    <alias>World Wide Web Consortium</alias>
    <example>The W3C wrote it.</example>
  </lexeme>
  <lexeme>
    <grapheme>New York City</grapheme>
    <phoneme alphabet="x-sampa">nju: jO:k "sIti</phoneme>
    <alias>new york city</alias>
  </lexeme>
  <lexeme>
    <grapheme>AT&amp;T</grapheme>
    <alias>A T &#x26; T</alias>
    <phoneme><![CDATA[ˌeɪtiːənˈtiː]]></phoneme>
  </lexeme>
</lexicon>
