package io.quiver.store.internal.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.NodeId;
import io.quiver.store.internal.table.EdgeRow;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each kind of outbox work is stored by its own class and read back whole, and handled by its own handler. */
class OutboxOpTest {
  private static final NodeId NODE = NodeId.of(3, 2, 77);
  private static final NodeId OTHER = NodeId.of(5, 2, 78);

  private static List<OutboxOp> everyKind() {
    return List.of(
        new InverseOp(12, NODE, OTHER, new EdgeRow(9, EdgeRow.ARCHIVED, "{\"note\": \"x\"}", 1_234_567)),
        new InverseOp(12, NODE, OTHER, new EdgeRow(0, EdgeRow.DELETED, null, 7)),
        new CascadeOp(NODE, OutboxOp.Kind.CASCADE_DELETE),
        new CascadeOp(NODE, OutboxOp.Kind.CASCADE_ARCHIVE),
        new CascadeOp(NODE, OutboxOp.Kind.CASCADE_RESTORE),
        new UniqueReleaseOp(4, "email", "a\"b@example.com", NODE, 42));
  }

  @Test
  void everyKind_isStoredUnderItsOwnCode_andReadBackWhole() {
    List<OutboxOp> ops = everyKind();
    assertThat(ops).extracting(OutboxOp::kind).containsAll(Arrays.asList(OutboxOp.Kind.values()));
    for (OutboxOp op : ops) {
      assertThat(op.columns().kind()).isEqualTo(op.kind().code());
      assertThat(OutboxOp.of(op.columns())).as("%s read back", op).isEqualTo(op);
    }
  }

  @Test
  void eachKind_goesToItsOwnHandler_singlyAndAsABatch() {
    List<String> handled = new ArrayList<>();
    OutboxHandlers handlers = new OutboxHandlers(
        op -> record(handled, "inverse " + op.edgeTypeId()),
        op -> record(handled, "cascade " + op.kind()),
        op -> record(handled, "release " + op.field()));
    for (OutboxOp op : everyKind()) {
      handlers.apply(op).await();
    }
    handlers.applyAll(OutboxOp.Kind.CASCADE_ARCHIVE, List.of(new CascadeOp(OTHER, OutboxOp.Kind.CASCADE_ARCHIVE),
        new CascadeOp(NODE, OutboxOp.Kind.CASCADE_ARCHIVE))).await();
    assertThat(handled).containsExactly("inverse 12", "inverse 12", "cascade CASCADE_DELETE", "cascade CASCADE_ARCHIVE",
        "cascade CASCADE_RESTORE", "release email", "cascade CASCADE_ARCHIVE", "cascade CASCADE_ARCHIVE");
  }

  private static Future<Void> record(List<String> handled, String what) {
    handled.add(what);
    return Future.succeededFuture();
  }
}
