package io.quiver.store;

/** The change log's contract, the log written from each host's binary log by its tailer. */
class TailedChangeLogTest extends ChangeLogContract {
  @Override
  ChangeLogSettings.Source source() {
    return ChangeLogSettings.Source.BINARY_LOG;
  }
}
