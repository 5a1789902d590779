package io.quiver.store.internal;

import static io.quiver.store.internal.ZooKeeperCalls.call;
import static io.quiver.store.internal.ZooKeeperCalls.failed;
import static io.quiver.store.internal.ZooKeeperCalls.is;
import static io.quiver.store.internal.ZooKeeperCalls.write;

import io.quiver.core.GraphException;
import io.quiver.store.ChangeCursor;
import io.quiver.store.ChangeGroups;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;

/**
 * {@link ChangeGroups} kept in ZooKeeper, under one directory per group: {@code members/<name>},
 * an ephemeral znode per member for as long as it follows, and {@code positions}, the committed
 * cursor's text, updated by compare-and-set on its version. Every call is one of Curator's
 * background calls answered on the caller's context ({@link ZooKeeperCalls}): nothing here blocks
 * an event loop. A membership watches its own znode (deleted: its name was taken, or its session
 * ended) and the list of members (changed: the shards are dealt again).
 */
final class ZkChangeGroups implements ChangeGroups {
  /** How many times a commit retries a compare-and-set another commit won. */
  private static final int COMMIT_ATTEMPTS = 20;

  private final Vertx vertx;
  private final CuratorFramework curator;
  private final String root;
  private final Supplier<List<Integer>> shards;

  /**
   * @param curator null for a backend without ZooKeeper: every call fails UNAVAILABLE
   * @param shards every shard of the map, the shards a group splits
   */
  ZkChangeGroups(Vertx vertx, CuratorFramework curator, String root, Supplier<List<Integer>> shards) {
    this.vertx = vertx;
    this.curator = curator;
    this.root = root;
    this.shards = shards;
  }

  @Override
  public Future<Membership> join(String group, String member) {
    if (curator == null) {
      return withoutZooKeeper();
    }
    Context context = vertx.getOrCreateContext();
    String path;
    try {
      path = members(group) + "/" + name("member", member);
    } catch (GraphException refused) {
      return Future.failedFuture(refused);
    }
    // A member of this name still registered is a consumer restarted before its old connection was
    // seen to close: the name is taken over, and the old membership sees its znode go.
    return call(context, "take over member '" + member + "'", curator.delete(), path)
        .compose(deleted -> write(context, "register member '" + member + "'", curator.create()
            .creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL), path, new byte[0]))
        .compose(created -> {
          if (is(created, Code.NODEEXISTS)) {
            return Future.failedFuture(GraphException.unavailable("member '" + member + "' of group '" + group
                + "' joined twice at once; retry"));
          }
          if (!is(created, Code.OK)) {
            return Future.failedFuture(failed("register member '" + member + "'", created));
          }
          Joined joined = new Joined(context, group, member, path);
          return joined.watchSelf().compose(watched -> joined.watchMembers())
              .onFailure(unwatched -> joined.leave())
              .map(dealt -> (Membership) joined);
        });
  }

  @Override
  public Future<Commit> commit(String group, String member, ChangeCursor cursor) {
    if (curator == null) {
      return withoutZooKeeper();
    }
    Context context = vertx.getOrCreateContext();
    try {
      name("member", member);
      String membersPath = members(group);
      return call(context, "read the members of group '" + group + "'", curator.getChildren(), membersPath)
          .compose(read -> {
            if (!is(read, Code.OK) && !is(read, Code.NONODE)) {
              return Future.failedFuture(failed("read the members of group '" + group + "'", read));
            }
            List<String> names = is(read, Code.OK) ? read.getChildren() : List.of();
            if (!names.contains(member)) {
              return Future.failedFuture(GraphException.notFound("'" + member + "' is not a member of group '" + group
                  + "' (its follow ended, or it never joined): the shards it read are dealt to others now; follow"
                  + " again as a member, then commit"));
            }
            List<Integer> owned = ChangeGroups.assign(Set.copyOf(names), shards.get()).get(member);
            List<Integer> given = new ArrayList<>();
            List<Integer> ignored = new ArrayList<>();
            cursor.positions().keySet().forEach(shard -> (owned.contains(shard) ? given : ignored).add(shard));
            return advance(context, group, cursor, given, COMMIT_ATTEMPTS)
                .map(committed -> new Commit(committed, given, ignored));
          });
    } catch (GraphException refused) {
      return Future.failedFuture(refused);
    }
  }

  /** The group's positions moved up to {@code cursor}'s on {@code shards}, by compare-and-set. */
  private Future<ChangeCursor> advance(Context context, String group, ChangeCursor cursor, List<Integer> shards,
      int attempts) {
    String path = positions(group);
    return call(context, "read group '" + group + "''s positions", curator.getData(), path)
        .compose(read -> {
          if (!is(read, Code.OK) && !is(read, Code.NONODE)) {
            return Future.failedFuture(failed("read group '" + group + "''s positions", read));
          }
          ChangeCursor committed = is(read, Code.OK) ? cursorOf(read) : ChangeCursor.START;
          ChangeCursor advanced = committed;
          for (int shard : shards) {
            if (cursor.position(shard) > advanced.position(shard)) {
              advanced = advanced.after(shard, cursor.position(shard));
            }
          }
          if (advanced.equals(committed)) {
            return Future.succeededFuture(committed);
          }
          byte[] text = advanced.toString().getBytes(StandardCharsets.UTF_8);
          ChangeCursor written = advanced;
          Future<CuratorEvent> write = is(read, Code.OK)
              ? write(context, "commit group '" + group + "''s positions",
                  curator.setData().withVersion(read.getStat().getVersion()), path, text)
              : write(context, "commit group '" + group + "''s positions",
                  curator.create().creatingParentContainersIfNeeded(), path, text);
          return write.compose(wrote -> {
            if (is(wrote, Code.OK)) {
              return Future.succeededFuture(written);
            }
            if ((is(wrote, Code.BADVERSION) || is(wrote, Code.NODEEXISTS)) && attempts > 1) {
              return advance(context, group, cursor, shards, attempts - 1);
            }
            return Future.failedFuture(failed("commit group '" + group + "''s positions", wrote));
          });
        });
  }

  @Override
  public Future<State> describe(String group) {
    if (curator == null) {
      return withoutZooKeeper();
    }
    Context context = vertx.getOrCreateContext();
    try {
      String membersPath = members(group);
      String positionsPath = positions(group);
      Future<CuratorEvent> members = call(context, "read the members of group '" + group + "'",
          curator.getChildren(), membersPath);
      Future<CuratorEvent> positions = call(context, "read group '" + group + "''s positions", curator.getData(),
          positionsPath);
      return Future.all(members, positions).map(both -> new State(group,
          ChangeGroups.assign(is(members.result(), Code.OK) ? Set.copyOf(members.result().getChildren()) : Set.of(),
              shards.get()),
          is(positions.result(), Code.OK) ? cursorOf(positions.result()) : ChangeCursor.START));
    } catch (GraphException refused) {
      return Future.failedFuture(refused);
    }
  }

  private static <T> Future<T> withoutZooKeeper() {
    return Future.failedFuture(GraphException.unavailable("consumer groups are kept in ZooKeeper, and this server"
        + " runs without it"));
  }

  private static ChangeCursor cursorOf(CuratorEvent read) {
    return ChangeCursor.parse(new String(read.getData(), StandardCharsets.UTF_8));
  }

  private String members(String group) {
    return root + "/" + name("group", group) + "/members";
  }

  private String positions(String group) {
    return root + "/" + name("group", group) + "/positions";
  }

  private static String name(String what, String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw GraphException.invalid("a " + what + "'s name is letters, digits, '_', '.' and '-', at most 64, starting"
          + " with a letter or digit; got '" + name + "'");
    }
    return name;
  }

  /** One member's place in its group, watched. */
  private final class Joined implements Membership {
    private final Context context;
    private final String group;
    private final String member;
    private final String path;
    private volatile Assignment assignment = new Assignment(0, List.of());
    private volatile String lost;
    private volatile boolean left;
    private long createdZxid;

    Joined(Context context, String group, String member, String path) {
      this.context = context;
      this.group = group;
      this.member = member;
      this.path = path;
    }

    /** Watches this member's znode: deleted, the membership is lost. */
    Future<Void> watchSelf() {
      CuratorWatcher watcher = event -> {
        if (event.getType() == EventType.NodeDeleted) {
          lose("another consumer joined under the name '" + member + "', or this server's ZooKeeper session ended");
        } else if (event.getState() == KeeperState.Expired) {
          lose("this server's ZooKeeper session ended");
        } else if (!left && lost == null) {
          watchSelf();
        }
      };
      return call(context, "watch member '" + member + "'", curator.checkExists().usingWatcher(watcher), path)
          .compose(checked -> {
            if (checked.getStat() == null) {
              lose("another consumer joined under the name '" + member + "'");
            } else if (createdZxid == 0) {
              createdZxid = checked.getStat().getCzxid();
            }
            return Future.succeededFuture();
          });
    }

    /** Reads the members, deals the shards, and watches for the next change of members. */
    Future<Void> watchMembers() {
      CuratorWatcher watcher = (WatchedEvent event) -> {
        if (!left && lost == null) {
          watchMembers();
        }
      };
      return call(context, "read the members of group '" + group + "'", curator.getChildren().usingWatcher(watcher),
          members(group))
          .compose(read -> {
            if (!is(read, Code.OK)) {
              return Future.failedFuture(failed("read the members of group '" + group + "'", read));
            }
            Map<String, List<Integer>> dealt = ChangeGroups.assign(Set.copyOf(read.getChildren()), shards.get());
            List<Integer> mine = dealt.getOrDefault(member, List.of());
            synchronized (this) {
              if (!mine.equals(assignment.shards()) || assignment.generation() == 0) {
                assignment = new Assignment(assignment.generation() + 1, mine);
              }
            }
            return Future.<Void>succeededFuture();
          });
    }

    private void lose(String why) {
      if (!left && lost == null) {
        lost = why;
      }
    }

    @Override
    public String group() {
      return group;
    }

    @Override
    public String member() {
      return member;
    }

    @Override
    public Assignment assignment() {
      return assignment;
    }

    @Override
    public String lost() {
      return lost;
    }

    @Override
    public void leave() {
      if (left) {
        return;
      }
      left = true;
      if (lost != null) {
        return;
      }
      // Deleted only while it is still this membership's znode, not a successor's under the same name.
      call(context, "check member '" + member + "'", curator.checkExists(), path)
          .onSuccess(checked -> {
            if (checked.getStat() != null && checked.getStat().getCzxid() == createdZxid) {
              call(context, "remove member '" + member + "'",
                  curator.delete().withVersion(checked.getStat().getVersion()), path);
            }
          });
    }
  }
}
