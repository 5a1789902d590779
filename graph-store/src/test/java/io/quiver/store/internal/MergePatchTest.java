package io.quiver.store.internal;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The examples of RFC 7396, appendix A, that apply to objects. */
class MergePatchTest {

  private static void check(String target, String patch, String result) {
    assertThat(MergePatch.apply(json(target), json(patch))).isEqualTo(json(result));
  }

  @Test
  void apply_followsRfc7396() {
    check("{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
    check("{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}");
    check("{\"a\":\"b\"}", "{\"a\":null}", "{}");
    check("{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}");
    check("{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
    check("{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}");
    check("{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}");
    check("{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}");
    check("{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}");
    check("{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}");
  }

  @Test
  void apply_leavesItsArgumentsUnchanged() {
    var target = json("{\"a\":{\"b\":1}}");
    var patch = json("{\"a\":{\"b\":2}}");
    MergePatch.apply(target, patch);
    assertThat(target).isEqualTo(json("{\"a\":{\"b\":1}}"));
  }
}
