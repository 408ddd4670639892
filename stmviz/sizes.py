"""Size functions μ : E → ℝ⁺ (re-exported from :mod:`stmviz.core.sizes`)."""

from .core.sizes import (  # noqa: F401
    SizeFunction,
    audio_tokens,
    available_encodings,
    chars,
    count_tokens,
    get_encoding,
    image_tokens,
    tokens,
    words,
)

__all__ = ["SizeFunction", "tokens", "chars", "words", "image_tokens", "audio_tokens", "count_tokens", "get_encoding", "available_encodings"]
