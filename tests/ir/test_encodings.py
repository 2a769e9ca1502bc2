"""IR in UTF-32 with a byte order mark, which read_model reads (measured below) and libxml2's push parser, which
irpool streams with, refuses unless told the encoding ("Start tag expected": a false refusal before); and XML text
given to the Python API as a str whose declaration names an encoding, read as a file of it would be."""
import pathlib

import pytest
from lxml import etree

import irpool
from clitool import cli

SMALL = pathlib.Path(__file__).parent.parent.parent / "examples" / "small_net.xml"
BODY = SMALL.read_text().split("?>", 1)[1]       # (the net after its XML declaration)
WAYS = {"le, declared": ("utf-32", "UTF-32"), "le, undeclared": ("utf-32", None), "le, declared LE": ("utf-32", "UTF-32LE"),
        "be, declared": ("utf-32-be", "UTF-32")}


def _written(tmp_path, way) -> pathlib.Path:
    codec, declared = WAYS[way]
    text = (f'<?xml version="1.0" encoding="{declared}"?>' if declared else "") + BODY
    data = text.encode(codec)
    if codec == "utf-32-be":
        data = b"\x00\x00\xfe\xff" + data
    assert data[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
    path = tmp_path / "net.xml"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("way", sorted(WAYS))
def test_utf32_with_a_byte_order_mark_is_read(tmp_path, way):
    path = _written(tmp_path, way)
    pull = etree.XMLPullParser(encoding="UTF-32LE" if path.read_bytes()[0] else "UTF-32BE")
    try:                                        # (libxml2 2.9.14, lxml 4.9's, .ci/run's floors: no UTF-32 fed)
        pull.feed(path.read_bytes())
        pull.close()
    except etree.XMLSyntaxError:
        pytest.skip(f"this libxml2 {etree.LIBXML_VERSION} does not read UTF-32 fed to its pull parser")
    report = irpool.check(str(path))
    assert report.ok and report.pooling_layers == 2, [f.message for f in report.findings]
    r = cli("check", path)
    assert r.returncode == 0 and "ok (2 pooling layers" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("way", sorted(WAYS))
def test_openvino_reads_utf32_with_a_byte_order_mark(tmp_path, way):
    ov = pytest.importorskip("openvino")
    model = ov.Core().read_model(str(_written(tmp_path, way)))
    assert [d.get_length() for d in model.inputs[0].get_partial_shape()] == [1, 4, 16, 16]


@pytest.mark.parametrize("declared", ["UTF-16", "ISO-8859-1", "ascii", "UTF-8"])
def test_a_str_is_read_in_the_encoding_its_declaration_names(declared):
    assert irpool.check(f'<?xml version="1.0" encoding="{declared}"?>' + BODY).ok


def test_a_str_its_declared_encoding_cannot_write_is_refused_saying_so():
    text = '<?xml version="1.0" encoding="ascii"?>' + BODY.replace("max3x3", "max\u00e9")
    with pytest.raises(irpool.IRError, match="its declared encoding ascii cannot write"):
        irpool.check(text)
    with pytest.raises(irpool.IRError, match="which Python does not know"):
        irpool.check('<?xml version="1.0" encoding="no-such-codec"?>' + BODY)


@pytest.mark.parametrize("codec", ["utf-16", "utf-32"])
def test_a_dtd_in_a_wide_encoding_is_refused_before_lxml_reads_a_byte(tmp_path, codec):
    """The prolog's scan reads the document's first bytes to tell its encoding (a change of this stop read them after
    the four UTF-32's byte order mark needed, and the scan saw the wrong bytes; lxml's own DTD check then caught it
    later): a DTD is refused as the Document is opened."""
    from irpool.ir.read.document import Document
    text = f'<?xml version="1.0" encoding="{codec.upper()}"?>\n<!DOCTYPE net [<!ENTITY k "2,2">]>\n' + BODY
    path = tmp_path / "dtd.xml"
    path.write_bytes(text.encode(codec))
    with pytest.raises(irpool.IRError, match="declares a DTD"):
        Document(str(path))
