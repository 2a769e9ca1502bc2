"""Ideas for reading the ports of the layers irpool does not model in lxml's C instead of Python, timed against
what check does now (layer_edge.light_ports, one layer at a time) and against OpenVINO's read_model of the file.

check compares, for every edge, the producer's output dims with the consumer's input dims, so it reads every
port of every layer. Each idea below yields the same thing for the layers of one <layers> element: per layer its
output and input ports as (port id, dims text). Times are the best of --runs on one model, in ms.

    python benchmarks/check_ideas.py model.xml        # e.g. a DenseNet-121 saved by OpenVINO (~800 layers)
"""
from __future__ import annotations

import argparse
import os
import re
import sys

from lxml import etree

from irpool.ir.read.layer_edge import light_ports

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import best_of  # noqa: E402

# One line per layer: id, type, its output ports then its input ports as "id=dim,dim,;" (XSLT 1.0 in libxslt).
XSLT_PLAIN = b"""<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
<xsl:output method="text" encoding="UTF-8"/>
<xsl:template match="/*"><xsl:for-each select="layer"><xsl:value-of select="@id"/><xsl:text>&#9;</xsl:text>
<xsl:for-each select="output/port"><xsl:value-of select="@id"/>=<xsl:for-each select="dim"><xsl:value-of select="."/>,
</xsl:for-each>;</xsl:for-each><xsl:text>&#9;</xsl:text>
<xsl:for-each select="input/port"><xsl:value-of select="@id"/>=<xsl:for-each select="dim"><xsl:value-of select="."/>,
</xsl:for-each>;</xsl:for-each><xsl:text>&#10;</xsl:text></xsl:for-each></xsl:template></xsl:stylesheet>"""
# The same, but a layer is only read this way when light_ports would take it (one <input>, one <output>, every
# child a <port> with an id, no port id twice, dims of digits, '-', '?', '.'): what check must know to trust it.
XSLT_CHECKED = XSLT_PLAIN.replace(
    b'<xsl:for-each select="layer">',
    b'<xsl:for-each select="layer[@id and @type and count(input) &lt; 2 and count(output) &lt; 2'
    b" and not((input | output)/node()[not(self::port and @id)])"
    b" and not((input | output)/port[@id = preceding-sibling::port/@id])"
    b" and not((input | output)/port/dim[translate(., '0123456789-?.', '') != ''])]\">")
# tostring of the whole <layers>, then one regular expression for layers, sections and ports
TOKENS = re.compile(rb'<layer id="([^"]*)"[^>]*>|<(input|output)>|<port id="([^"]*)"[^>]*>((?:<dim>[^<]*</dim>)*)')


def by_light_ports(holder):
    return [light_ports(el) for el in holder]


def by_xslt(transform):
    return lambda holder: str(transform(holder)).split("\n")


def by_tostring_regex(holder):
    layers, side = [], None
    for lid, section, pid, dims in TOKENS.findall(etree.tostring(holder)):
        if lid:
            layers.append(([], []))
        elif section:
            side = layers[-1][0 if section == b"output" else 1]
        else:
            side.append((pid, dims))
    return layers


def by_itertext(holder):
    out = []
    for el in holder:
        sides = {}
        for section in el.iterchildren("input", "output"):
            sides[section.tag] = tuple((p.get("id"), tuple(p.itertext("dim"))) for p in section)
        out.append((sides.get("output", ()), sides.get("input", ())))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("xml")
    ap.add_argument("--runs", type=int, default=21)
    args = ap.parse_args(argv)
    parser = etree.XMLParser(remove_blank_text=True)
    holder = etree.parse(args.xml, parser).getroot().find("layers")
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    print(f"# {cpu}; {args.xml}: {len(holder)} layers; best of {args.runs}, ms")
    rows = [("lxml parse of the whole file", lambda: etree.parse(args.xml, parser)),
            ("check now: light_ports per layer", lambda: by_light_ports(holder)),
            ("XSLT, one line a layer", lambda: by_xslt(etree.XSLT(etree.XML(XSLT_PLAIN)))(holder)),
            ("XSLT with the checks light_ports makes", lambda: by_xslt(etree.XSLT(etree.XML(XSLT_CHECKED)))(holder)),
            ("tostring of <layers> + one regex", lambda: by_tostring_regex(holder)),
            ("itertext per port", lambda: by_itertext(holder))]
    try:
        import openvino as ov
        core = ov.Core()
        rows.append(("OpenVINO read_model of the file", lambda: core.read_model(args.xml)))
    except ImportError:
        pass
    for name, fn in rows:
        print(f"{name:45s} {best_of(fn, args.runs) * 1e3:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
