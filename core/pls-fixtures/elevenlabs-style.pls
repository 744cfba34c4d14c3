<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0"
      xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"
      xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
      xsi:schemaLocation="http://www.w3.org/2005/01/pronunciation-lexicon
        http://www.w3.org/TR/2007/CR-pronunciation-lexicon-20071212/pls.xsd"
      alphabet="ipa" xml:lang="en-US">

  <!-- === Brand names === -->
  <lexeme><grapheme>Kokoro</grapheme><phoneme>/kəˈkɔːɹoʊ/</phoneme></lexeme>
  <lexeme><grapheme>Nginx</grapheme><alias>engine x</alias></lexeme>

  <!-- === Names === -->
  <lexeme><grapheme>Siobhan</grapheme><phoneme>/ʃɪˈvɔːn/</phoneme></lexeme>
</lexicon>
