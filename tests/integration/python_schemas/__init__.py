"""Tool functions whose parameters toolc reads and pydantic checks."""

import dataclasses
import datetime
import decimal
import enum
import pathlib
import uuid
from typing import Annotated, Any, ClassVar, Dict, List, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import NotRequired, Required, TypedDict


class Color(enum.Enum):
    """A colour of the palette."""

    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Address(TypedDict):
    """A postal address."""

    street: str
    number: int


class Filters(TypedDict, total=False):
    tags: list[str]
    since: datetime.date


class Marked(TypedDict):
    x: int
    y: NotRequired[float]


class MarkedPartial(TypedDict, total=False):
    a: int
    b: Required[str]


@dataclasses.dataclass
class Point:
    """A point on the plane."""

    x: float
    y: float = 0.0


class Query(BaseModel):
    """A search query."""

    text: str = Field(min_length=1, description="What to look for.")
    limit: int = Field(default=10, ge=1, le=100)
    color: Optional[Color] = None


@dataclasses.dataclass
class Segment:
    """Strings after fields describe them (use_attribute_docstrings)."""

    __pydantic_config__: ClassVar[dict[str, bool]] = {"use_attribute_docstrings": True}

    start: Point
    "Where it starts."

    # A comment between a field and its string.
    label: str | None = None
    (
        "What it is called, "
        "in two pieces."
    )


class Note(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    text: str
    """The note."""

    tag: str = Field(default="", description="Field's own description wins.")
    """Not this one."""


@dataclasses.dataclass
class Plain:
    x: int
    "Without the config, not a description."


class PagedQuery(Query):
    """A query with a page."""

    page: int = 1


def plain(name: str, count: int, ratio: float, flag: bool) -> str:
    """Plain scalars."""
    return ""


def optional_required(a: Optional[int], b: str | None) -> str:
    """Optional without a default is still required."""
    return ""


def optional_defaults(a: Optional[int] = None, b: Union[str, None] = None, c: int | str | None = 3) -> str:
    """Optional with defaults."""
    return ""


def literal_defaults(a: int = 5, b: str = "x", c: bool = False, d: list[int] = [1, 2]) -> str:
    """Literal defaults."""
    return ""


def containers(a: list[str], b: List[int], c: dict[str, float], d: Dict[str, list[str]], e: set[int]) -> str:
    """Containers."""
    return ""


def untyped_containers(a: list, b: dict) -> str:
    """Containers without item types."""
    return ""


def times(a: datetime.datetime, b: datetime.date, c: datetime.time, d: datetime.timedelta) -> str:
    """Dates and times."""
    return ""


def identifiers(a: uuid.UUID, b: pathlib.Path, c: decimal.Decimal, d: bytes) -> str:
    """Identifiers, paths, decimals and bytes."""
    return ""


def enums(color: Color, level: Level = Level.HIGH, maybe: Optional[Color] = Color.RED) -> str:
    """Enums of the package."""
    return ""


def literals(mode: Literal["fast", "slow"], one: Literal["only"] = "only", n: Literal[1, 2] = 1) -> str:
    """Literal values."""
    return ""


def typed_dicts(address: Address, filters: Filters, marked: Marked, partial: MarkedPartial) -> str:
    """TypedDicts, with keys marked Required and NotRequired."""
    return ""


def dataclasses_(point: Point, points: list[Point]) -> str:
    """Dataclasses."""
    return ""


def models(query: Query, paged: PagedQuery | None = None) -> str:
    """Pydantic models, one inheriting from another."""
    return ""


def annotated_numbers(a: Annotated[int, Field(ge=0, le=10)], b: Annotated[float, Field(gt=0, lt=1, multiple_of=0.25)]) -> str:
    """Numeric constraints."""
    return ""


def annotated_strings(a: Annotated[str, Field(min_length=2, max_length=8, pattern=r"^[a-z]+$")], b: Annotated[list[str], Field(min_length=1, max_length=3)]) -> str:
    """String and list constraints."""
    return ""


def annotated_descriptions(a: Annotated[str, Field(description="The a.")], b: Annotated[int, Field(default=4, description="The b.")] = 4) -> str:
    """Descriptions and defaults in Annotated."""
    return ""


def field_defaults(a: int = Field(default=3, ge=0), b: str = Field("x", max_length=5), c: list[str] = Field(default_factory=list), d: int = Field(..., le=9)) -> str:
    """Field() as the default."""
    return ""


def optional_constraints(a: Annotated[Optional[str], Field(max_length=3)] = None) -> str:
    """Constraints on an optional value."""
    return ""


def nested_optionals(a: list[Optional[str]], b: dict[str, int | None], c: Optional[list[Point]] = None) -> str:
    """Optionals inside containers."""
    return ""


def anything(a: Any, b: Optional[Any] = None) -> str:
    """Any value."""
    return ""


def keyword_only(a: int, *, b: str, c: bool = True, **extra: Any) -> str:
    """Keyword-only parameters; **extra is not a parameter."""
    return ""


def long_summary(a: int) -> str:
    """A summary that runs
    over three lines
    of the docstring.

    Args:
        a: A number.

    Returns:
        Nothing useful.
    """
    return ""


def attribute_docstrings(segment: Segment, note: Note, plain: Plain) -> str:
    """Field descriptions from the strings after the fields."""
    return ""
