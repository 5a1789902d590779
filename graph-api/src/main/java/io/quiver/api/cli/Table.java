package io.quiver.api.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Rows for people: columns padded to their widest cell, a header, two spaces between. */
final class Table {
  private final List<String[]> rows = new ArrayList<>();

  Table(String... header) {
    rows.add(header);
  }

  Table row(Object... cells) {
    String[] text = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      text[i] = String.valueOf(cells[i]);
    }
    rows.add(text);
    return this;
  }

  void print(PrintWriter out) {
    int columns = rows.get(0).length;
    int[] widths = new int[columns];
    for (String[] row : rows) {
      for (int i = 0; i < columns; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        line.append(i == columns - 1 ? row[i] : String.format("%-" + widths[i] + "s  ", row[i]));
      }
      out.println(line.toString().stripTrailing());
    }
    out.flush();
  }
}
