package io.quiver.store;

/** The change log's contract, the log written by the writes themselves (the default). */
class ChangeLogTest extends ChangeLogContract {
  @Override
  ChangeLogSettings.Source source() {
    return ChangeLogSettings.Source.WRITES;
  }
}
