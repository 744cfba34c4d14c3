<?xml version='1.0' encoding='UTF-8'?>
<lexicon xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="1.0"
    xsi:schemaLocation="http://www.w3.org/2005/01/pronunciation-lexicon http://www.w3.org/TR/2007/CR-pronunciation-lexicon-20071212/pls.xsd"
    alphabet="ipa" xml:lang="en" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon">
    <lexeme>
        <grapheme>Colour</grapheme>
        <grapheme> Color</grapheme>
        <phoneme>ˈkʌlə</phoneme>
    </lexeme>
    <lexeme>
        <grapheme>Tomato</grapheme>
        <phoneme>təˈmɑːtoʊ</phoneme>
    </lexeme>
</lexicon>
