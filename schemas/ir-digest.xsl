<?xml version="1.0" encoding="UTF-8"?>
<!-- What irpool.check needs from the first $n children of a <layers> or <edges> element, as tab-separated
     lines, computed by libxslt instead of Python. Records (fields are tab-separated):
       L pos odd id type version key    one per layer; odd=1 sends it to the Python reader (see below);
                                        key is the layer's data and ports, for caching clean layers
       P pos side id dims               one per port; side o|i; dims joined with ","
       E pos odd from-layer from-port to-layer to-port
     A layer or edge is odd when a value it needs could break this format (a tab, a newline, a comma in a
     dim) or when it lacks what the structure schema requires; the Python reader then reads it itself. -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="text" encoding="UTF-8"/>
  <xsl:param name="n" select="0"/>
  <xsl:variable name="T" select="'&#9;'"/>
  <xsl:variable name="N" select="'&#10;'"/>

  <xsl:template match="/layers">
    <xsl:for-each select="layer[position() &lt;= $n]">
      <xsl:variable name="odd" select="not(@id) or not(@type) or count(data) &gt; 1 or count(input) &gt; 1
          or count(output) &gt; 1 or input/*[not(self::port) or not(@id)] or output/*[not(self::port) or not(@id)]
          or @*[contains(., $T) or contains(., $N)]
          or (input|output|data)/@* [contains(., $T) or contains(., $N)]
          or (input|output)/port/@*[contains(., $T) or contains(., $N)]
          or (input|output)/port/dim[contains(., $T) or contains(., $N) or contains(., ',') or *]"/>
      <xsl:text>L&#9;</xsl:text><xsl:value-of select="position()"/>
      <xsl:text>&#9;</xsl:text><xsl:value-of select="number($odd)"/>
      <xsl:text>&#9;</xsl:text><xsl:value-of select="@id"/>
      <xsl:text>&#9;</xsl:text><xsl:value-of select="@type"/>
      <xsl:text>&#9;</xsl:text><xsl:value-of select="@version"/>
      <xsl:if test="not($odd) and (@type = 'MaxPool' or @type = 'AvgPool' or @type = 'Parameter')">
        <xsl:for-each select="data/@*">
          <xsl:text>&#9;</xsl:text><xsl:value-of select="name()"/>=<xsl:value-of select="."/>
        </xsl:for-each>
        <xsl:for-each select="input/port|output/port">
          <xsl:text>&#9;</xsl:text><xsl:value-of select="name(..)"/>:<xsl:value-of select="@id"/>
          <xsl:text>:</xsl:text><xsl:value-of select="@precision"/>:<xsl:value-of select="@names"/>
          <xsl:for-each select="dim">,<xsl:value-of select="."/></xsl:for-each>
        </xsl:for-each>
      </xsl:if>
      <xsl:value-of select="$N"/>
      <xsl:if test="not($odd)">
        <xsl:variable name="pos" select="position()"/>
        <xsl:for-each select="output/port">
          <xsl:text>P&#9;</xsl:text><xsl:value-of select="$pos"/><xsl:text>&#9;o&#9;</xsl:text>
          <xsl:value-of select="@id"/><xsl:text>&#9;</xsl:text>
          <xsl:for-each select="dim"><xsl:if test="position() &gt; 1">,</xsl:if><xsl:value-of select="."/></xsl:for-each>
          <xsl:value-of select="$N"/>
        </xsl:for-each>
        <xsl:for-each select="input/port">
          <xsl:text>P&#9;</xsl:text><xsl:value-of select="$pos"/><xsl:text>&#9;i&#9;</xsl:text>
          <xsl:value-of select="@id"/><xsl:text>&#9;</xsl:text>
          <xsl:for-each select="dim"><xsl:if test="position() &gt; 1">,</xsl:if><xsl:value-of select="."/></xsl:for-each>
          <xsl:value-of select="$N"/>
        </xsl:for-each>
      </xsl:if>
    </xsl:for-each>
  </xsl:template>

  <xsl:template match="/edges">
    <xsl:for-each select="edge[position() &lt;= $n]">
      <xsl:text>E&#9;</xsl:text><xsl:value-of select="position()"/>
      <xsl:text>&#9;</xsl:text>
      <xsl:value-of select="number(count(@from-layer|@from-port|@to-layer|@to-port) != 4
                                   or @*[contains(., $T) or contains(., $N)])"/>
      <xsl:text>&#9;</xsl:text><xsl:value-of select="@from-layer"/>
      <xsl:text>&#9;</xsl:text><xsl:value-of select="@from-port"/>
      <xsl:text>&#9;</xsl:text><xsl:value-of select="@to-layer"/>
      <xsl:text>&#9;</xsl:text><xsl:value-of select="@to-port"/>
      <xsl:value-of select="$N"/>
    </xsl:for-each>
  </xsl:template>
</xsl:stylesheet>
