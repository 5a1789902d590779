package io.quiver.core.zk;

/** How a document type is read from and written to its znode, and where its version is. */
public interface DocumentCodec<T> {
  /** Parses and validates; a bad document fails with an IllegalArgumentException naming what is wrong. */
  T parse(byte[] bytes);

  byte[] toBytes(T document);

  /** The document's own version, which grows by one with every published change. */
  long version(T document);
}
