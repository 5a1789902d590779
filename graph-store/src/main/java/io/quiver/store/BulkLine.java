package io.quiver.store;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One line of a bulk import ({@link BulkImport}): a node to create under a reference, or an edge
 * to add between references of the import or existing nodes. {@code line} numbers it in the
 * import's input, so a report can say which line was refused.
 */
public sealed interface BulkLine {

  /** The line's number in the import's input, from 1. */
  long line();

  /** The references the line defines or uses. */
  List<String> refs();

  private static void addRef(List<String> refs, Endpoint endpoint) {
    if (endpoint != null && endpoint.ref() != null) {
      refs.add(endpoint.ref());
    }
  }

  /**
   * A node to create, known to the rest of the import (and to a rerun of it) as {@code ref}.
   *
   * @param colocateWith the node whose shard this one joins, or null for any open shard
   */
  record NodeLine(long line, String ref, String type, ObjectNode data, Endpoint colocateWith) implements BulkLine {
    public NodeLine {
      Objects.requireNonNull(ref, "ref");
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(data, "data");
    }

    @Override
    public List<String> refs() {
      List<String> refs = new ArrayList<>(List.of(ref));
      BulkLine.addRef(refs, colocateWith);
      return refs;
    }
  }

  /**
   * An edge to add, as {@link GraphStore#addEdge} adds one: a null sequence keeps an existing
   * edge's (a new one gets the write time), null data keeps an existing edge's.
   */
  record EdgeLine(long line, Endpoint from, String type, Endpoint to, Long sequence, ObjectNode data,
      EdgeState state) implements BulkLine {
    public EdgeLine {
      Objects.requireNonNull(from, "from");
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(to, "to");
      Objects.requireNonNull(state, "state");
    }

    @Override
    public List<String> refs() {
      List<String> refs = new ArrayList<>(2);
      BulkLine.addRef(refs, from);
      BulkLine.addRef(refs, to);
      return refs;
    }
  }

  /** An end of an edge, or a node to colocate with: an existing node's ID, or a reference of the import. */
  record Endpoint(NodeId id, String ref) {
    /** What a reference may be: 1 to 128 of letters, digits and {@code _ . : -}, not all digits (those are IDs). */
    private static final Pattern REF = Pattern.compile("(?=.*[^0-9])[A-Za-z0-9_.:-]{1,128}");

    public Endpoint {
      if ((id == null) == (ref == null)) {
        throw new IllegalArgumentException("an endpoint is an ID or a reference");
      }
    }

    public static Endpoint of(NodeId id) {
      return new Endpoint(id, null);
    }

    public static Endpoint of(String ref) {
      return new Endpoint(null, ref);
    }

    public static boolean isRef(String text) {
      return REF.matcher(text).matches();
    }

    @Override
    public String toString() {
      return id != null ? id.toString() : "ref '" + ref + "'";
    }
  }
}
