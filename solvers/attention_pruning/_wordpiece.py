"""BERT's uncased WordPiece tokenizer, written from the rules the model's own ``tokenizer.json`` names
(``BertNormalizer`` clean_text, handle_chinese_chars, lowercase with accents stripped;
``BertPreTokenizer``; ``WordPiece`` with prefix ``##`` and 100 characters per word at most;
``[CLS] A [SEP]``), reading the vocabulary from the model's ``vocab.txt``.  No dependency: the
``tokenizers`` package pulls huggingface-hub and its requirements, and the rules are short.
"""

from __future__ import annotations

import unicodedata

__all__ = ["WordPiece"]


def _is_control(ch: str) -> bool:
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch).startswith("C")


def _is_whitespace(ch: str) -> bool:
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
                                             (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)))


class WordPiece:
    """``WordPiece(vocab_path)``; ``encode(text)`` → token ids ``[CLS] … [SEP]`` (truncated to
    ``max_length`` ids, as the model's tokenizer.json does at 128)."""

    def __init__(self, vocab_path: str, *, max_length: int = 128, max_chars_per_word: int = 100):
        with open(vocab_path, encoding="utf-8") as fh:
            self.vocab = {line.rstrip("\n"): i for i, line in enumerate(fh)}
        for tok in ("[CLS]", "[SEP]", "[UNK]", "[PAD]"):
            if tok not in self.vocab:
                raise ValueError(f"vocab_path={vocab_path!r} must contain the special token {tok}")
        if max_length < 2:
            raise ValueError(f"max_length={max_length!r} must be at least 2 ([CLS] and [SEP])")
        self.max_length = max_length
        self.max_chars = max_chars_per_word

    def normalize(self, text: str) -> str:
        out = []
        for ch in text:
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD or _is_control(ch):
                continue
            if _is_whitespace(ch):
                out.append(" ")
            elif _is_cjk(cp):
                out.append(f" {ch} ")
            else:
                out.append(ch)
        text = unicodedata.normalize("NFD", "".join(out).lower())
        return "".join(ch for ch in text if unicodedata.category(ch) != "Mn")

    def words(self, text: str) -> list[str]:
        """BertPreTokenizer: split on whitespace, every punctuation character its own word."""
        words = []
        for chunk in self.normalize(text).split():
            cur = ""
            for ch in chunk:
                if _is_punctuation(ch):
                    if cur:
                        words.append(cur)
                    words.append(ch)
                    cur = ""
                else:
                    cur += ch
            if cur:
                words.append(cur)
        return words

    def pieces(self, word: str) -> list[str]:
        """Greedy longest-match-first; a word with an unmatched remainder is one ``[UNK]``."""
        if len(word) > self.max_chars:
            return ["[UNK]"]
        out, start = [], 0
        while start < len(word):
            end, found = len(word), None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    found = piece
                    break
                end -= 1
            if found is None:
                return ["[UNK]"]
            out.append(found)
            start = end
        return out

    def tokens(self, text: str) -> list[str]:
        toks = [p for w in self.words(text) for p in self.pieces(w)][: self.max_length - 2]
        return ["[CLS]", *toks, "[SEP]"]

    def encode(self, text: str) -> list[int]:
        if not isinstance(text, str):
            raise ValueError(f"text={text!r} must be a str")
        return [self.vocab[t] for t in self.tokens(text)]
