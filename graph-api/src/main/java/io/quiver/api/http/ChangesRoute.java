package io.quiver.api.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import io.quiver.store.ChangeCursor;
import io.quiver.store.ChangeEvent;
import io.quiver.store.ChangeGroups;
import io.quiver.store.ChangeLog;
import io.quiver.store.ChangePage;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * {@code GET /v1/changes}: the change log ({@link ChangeLog}) over HTTP. A page of events after a
 * cursor, as JSON; or, with {@code follow=true}, the events as they are logged, one JSON line each
 * ({@code application/x-ndjson}), for as long as the client keeps the response open — polled
 * every {@link #POLL_MS} while nothing is new (at once while pages come full), with a heartbeat line
 * every {@link #HEARTBEAT_MS} of silence so proxies keep the connection, and written no faster than
 * the client reads (the next poll waits for a full write queue to drain). Each event carries the
 * cursor just after it; a consumer resumes from the last one it processed. Mounted before the
 * request timeout: a follow lasts as long as its client.
 */
public final class ChangesRoute {
  /** How often a follow asks for new events while there are none. */
  static final long POLL_MS = 100;
  /** How long a follow stays silent before it writes a heartbeat. */
  static final long HEARTBEAT_MS = 5_000;
  private static final Set<String> PARAMETERS = Set.of("after", "shards", "types", "limit", "follow", "group",
      "member");
  private static final Set<String> COMMIT_MEMBERS = Set.of("member", "cursor");
  private static final Pattern TYPE = Pattern.compile("[A-Za-z][A-Za-z0-9_]{0,63}");
  private static final int DEFAULT_LIMIT = 100;

  private final ChangeLog log;
  private final ChangeGroups groups;
  private final Vertx vertx;

  public ChangesRoute(ChangeLog log, ChangeGroups groups, Vertx vertx) {
    this.log = log;
    this.groups = groups;
    this.vertx = vertx;
  }

  /** {@code GET /v1/changes}: mounted before the request timeout, since a follow lasts as long as its client. */
  public void mount(Router router) {
    RequestObserver.operation(router.get("/v1/changes"), "getChanges")
        .handler(QueryParams.allowing(PARAMETERS))
        .handler(this::handle);
  }

  /** A consumer group's state and commits: ordinary requests, mounted after the timeout and the body handler. */
  public void mountGroups(Router router) {
    RequestObserver.operation(router.get("/v1/changes/groups/:group"), "getChangeGroup")
        .handler(QueryParams.allowing(Set.of()))
        .handler(this::describe);
    RequestObserver.operation(router.post("/v1/changes/groups/:group/commit"), "commitChanges")
        .handler(QueryParams.allowing(Set.of()))
        .handler(this::commit);
  }

  /**
   * What a request asks for; {@code after} null for {@code after=now}; {@code group} and {@code
   * member} null outside a consumer group.
   */
  private record Request(ChangeCursor after, Set<Integer> shards, Set<String> types, int limit, boolean follow,
      String group, String member) {}

  private void handle(RoutingContext ctx) {
    Request request;
    try {
      request = parse(ctx);
    } catch (GraphException refused) {
      ctx.fail(refused);
      return;
    }
    if (request.group() != null) {
      groups.join(request.group(), request.member())
          .onSuccess(membership -> new Follow(ctx, request, ChangeCursor.START, membership).poll())
          .onFailure(ctx::fail);
      return;
    }
    Future<ChangeCursor> start = request.after() == null ? log.end(request.shards())
        : Future.succeededFuture(request.after());
    if (request.follow()) {
      start.onSuccess(cursor -> new Follow(ctx, request, cursor, null).poll()).onFailure(ctx::fail);
      return;
    }
    start.compose(cursor -> log.read(cursor, request.shards(), request.types(), request.limit()))
        .onSuccess(page -> ctx.response().putHeader("Content-Type", ApiJson.CONTENT_TYPE).end(page(page)))
        .onFailure(ctx::fail);
  }

  private static Request parse(RoutingContext ctx) {
    QueryParams params = QueryParams.of(ctx);
    String after = params.get("after");
    String group = params.get("group");
    String member = params.get("member");
    boolean follow = Requests.flag(ctx, "follow");
    if ((group == null) != (member == null)) {
      throw GraphException.invalid("'group' and 'member' go together: a member of a consumer group names both");
    }
    if (group != null && !follow) {
      throw GraphException.invalid("a consumer group is read with follow=true: a member holds its shards for as"
          + " long as it follows");
    }
    if (group != null && params.get("shards") != null) {
      throw GraphException.invalid("a member of a consumer group reads the shards the group deals it, not 'shards'");
    }
    return new Request("now".equals(after) ? null : ChangeCursor.parse(after), shards(params.get("shards")),
        types(params.get("types")), limit(params.get("limit")), follow, group, member);
  }

  /** {@code GET /v1/changes/groups/{group}}: its members, the shards each owns, its committed positions. */
  private void describe(RoutingContext ctx) {
    groups.describe(Requests.pathName(ctx, "group"))
        .onSuccess(state -> {
          ObjectNode out = ApiJson.object().put("group", state.group());
          ObjectNode members = out.putObject("members");
          state.owned().forEach((member, shards) -> shards.forEach(members.putArray(member)::add));
          positions(out, state.committed());
          ctx.response().putHeader("Content-Type", ApiJson.CONTENT_TYPE).end(ApiJson.buffer(out));
        })
        .onFailure(ctx::fail);
  }

  /** {@code POST /v1/changes/groups/{group}/commit} {@code {"member", "cursor"}}: the member's progress, kept. */
  private void commit(RoutingContext ctx) {
    String member;
    ChangeCursor cursor;
    try {
      ObjectNode body = Requests.body(ctx, COMMIT_MEMBERS);
      member = Requests.textMember(body, "member");
      cursor = ChangeCursor.parse(Requests.textMember(body, "cursor"));
    } catch (GraphException refused) {
      ctx.fail(refused);
      return;
    }
    groups.commit(Requests.pathName(ctx, "group"), member, cursor)
        .onSuccess(commit -> {
          ObjectNode out = ApiJson.object();
          commit.shards().forEach(out.putArray("shards")::add);
          commit.ignored().forEach(out.putArray("ignored")::add);
          positions(out, commit.committed());
          ctx.response().putHeader("Content-Type", ApiJson.CONTENT_TYPE).end(ApiJson.buffer(out));
        })
        .onFailure(ctx::fail);
  }

  /** A group's committed positions: the cursor a consumer may read from, and its positions shard by shard. */
  private static void positions(ObjectNode out, ChangeCursor committed) {
    out.put("committed", committed.toString());
    ObjectNode positions = out.putObject("positions");
    committed.positions().forEach((shard, position) -> positions.put(Integer.toString(shard), position));
  }

  /** {@code 0-3,7}: shards and ranges of them; none (every shard) when absent. */
  private static Set<Integer> shards(String text) {
    Set<Integer> shards = new TreeSet<>();
    if (text == null) {
      return shards;
    }
    for (String part : text.split(",", -1)) {
      String[] ends = part.split("-", -1);
      try {
        int from = Integer.parseInt(ends[0].trim());
        int to = ends.length == 2 ? Integer.parseInt(ends[1].trim()) : from;
        if (ends.length > 2 || from < 0 || to > 65535 || from > to || to - from > 65535) {
          throw new NumberFormatException();
        }
        for (int shard = from; shard <= to; shard++) {
          shards.add(shard);
        }
      } catch (NumberFormatException e) {
        throw GraphException.invalid("'shards' is a list of shards and ranges within 0..65535, such as 0-3,7; got '"
            + text + "'");
      }
    }
    return shards;
  }

  private static Set<String> types(String text) {
    Set<String> types = new TreeSet<>();
    if (text == null) {
      return types;
    }
    for (String type : text.split(",", -1)) {
      if (!TYPE.matcher(type).matches()) {
        throw GraphException.invalid("'types' is a list of node and edge type names, such as user,follows; got '"
            + text + "'");
      }
      types.add(type);
    }
    return types;
  }

  private static int limit(String text) {
    if (text == null) {
      return DEFAULT_LIMIT;
    }
    try {
      int limit = Integer.parseInt(text);
      if (limit >= 1 && limit <= ChangeLog.MAX_LIMIT) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw GraphException.invalid("'limit' must be within 1.." + ChangeLog.MAX_LIMIT + ", got '" + text + "'");
  }

  /** A page: its events, and the cursor after them. */
  private static Buffer page(ChangePage page) {
    Buffer out = Buffer.buffer("{\"events\": [");
    for (int i = 0; i < page.events().size(); i++) {
      out.appendString(i == 0 ? "" : ", ").appendString(event(page.events().get(i)));
    }
    return out.appendString("], \"cursor\": \"").appendString(page.cursor().toString()).appendString("\"}");
  }

  /**
   * One event: its cursor, shard, position and write time, then its body's members (the logged
   * JSON object, spliced in as it is stored).
   */
  static String event(ChangeEvent event) {
    return "{\"cursor\": \"" + event.cursor() + "\", \"shard\": " + event.shard() + ", \"position\": "
        + event.position() + ", \"writtenAt\": \"" + event.writtenAt() + "\", " + event.body().substring(1);
  }

  /** One follow: polls, writes, heartbeats, on the request's context, until the client goes. */
  private final class Follow {
    private final RoutingContext ctx;
    private final Request request;
    private final HttpServerResponse response;
    /** This follow's place in its consumer group; null outside one. */
    private final ChangeGroups.Membership membership;
    private ChangeCursor cursor;
    /** The shards each read asks for: the request's, or those the group deals this member. */
    private Set<Integer> shards;
    /** The generation of the group's deal {@link #shards} come from. */
    private long generation;
    private long silentSince = System.nanoTime();
    private boolean closed;

    Follow(RoutingContext ctx, Request request, ChangeCursor cursor, ChangeGroups.Membership membership) {
      this.ctx = ctx;
      this.request = request;
      this.response = ctx.response();
      this.cursor = cursor;
      this.membership = membership;
      this.shards = request.shards();
      response.closeHandler(gone -> {
        closed = true;
        if (membership != null) {
          membership.leave();
        }
      });
    }

    void poll() {
      if (closed) {
        return;
      }
      if (membership != null) {
        if (membership.lost() != null) {
          end(GraphException.unavailable("this follow's membership of group '" + membership.group() + "' ended: "
              + membership.lost() + "; follow again to rejoin"));
          return;
        }
        if (membership.assignment().generation() != generation) {
          deal(membership.assignment());
          return;
        }
        if (shards.isEmpty()) {
          // More members than shards: this one waits for a share.
          begin();
          heartbeat();
          next(POLL_MS);
          return;
        }
      }
      log.read(cursor, shards, request.types(), request.limit()).onComplete(read -> {
        if (closed) {
          return;
        }
        if (read.failed()) {
          failed(read.cause());
          return;
        }
        begin();
        ChangePage page = read.result();
        for (ChangeEvent event : page.events()) {
          response.write(event(event) + "\n");
        }
        cursor = page.cursor();
        if (!page.events().isEmpty()) {
          silentSince = System.nanoTime();
        } else {
          heartbeat();
        }
        next(page.events().size() == request.limit() ? 0 : POLL_MS);
      });
    }

    /** A heartbeat line, once the follow has been silent for {@link #HEARTBEAT_MS}. */
    private void heartbeat() {
      if (System.nanoTime() - silentSince >= HEARTBEAT_MS * 1_000_000) {
        response.write("{\"heartbeat\": true, \"cursor\": \"" + cursor + "\"}\n");
        silentSince = System.nanoTime();
      }
    }

    /**
     * The group dealt this member {@code dealt}: each shard is read on from where this follow
     * stands if it kept the shard, else from the group's committed position, else — a shard the
     * group never committed — from the request's {@code after} (the start, a cursor, or now), which
     * is committed at once so the shard's next owner starts there too. Announced with an {@code
     * assigned} line carrying the cursor.
     */
    private void deal(ChangeGroups.Assignment dealt) {
      groups.describe(membership.group())
          .compose(state -> {
            ChangeCursor start = ChangeCursor.START;
            Set<Integer> fresh = new TreeSet<>();
            for (int shard : dealt.shards()) {
              long kept = shards.contains(shard) ? cursor.position(shard) : 0;
              long position = Math.max(kept, state.committed().position(shard));
              if (position > 0) {
                start = start.after(shard, position);
              } else {
                fresh.add(shard);
              }
            }
            if (fresh.isEmpty()) {
              return Future.succeededFuture(start);
            }
            ChangeCursor known = start;
            Future<ChangeCursor> from = request.after() == null ? log.end(fresh)
                : Future.succeededFuture(request.after());
            return from.compose(fallback -> {
              ChangeCursor begun = known;
              ChangeCursor committing = ChangeCursor.START;
              for (int shard : fresh) {
                begun = begun.after(shard, fallback.position(shard));
                committing = committing.after(shard, fallback.position(shard));
              }
              ChangeCursor started = begun;
              return groups.commit(membership.group(), membership.member(), committing).map(committed -> started);
            });
          })
          .onComplete(started -> {
            if (closed) {
              return;
            }
            if (started.failed()) {
              failed(started.cause());
              return;
            }
            cursor = started.result();
            shards = Set.copyOf(dealt.shards());
            generation = dealt.generation();
            begin();
            response.write("{\"assigned\": " + dealt.shards() + ", \"generation\": " + generation
                + ", \"cursor\": \"" + cursor + "\"}\n");
            silentSince = System.nanoTime();
            next(0);
          });
    }

    /** The next poll after {@code delayMs}, once the client has read what was written. */
    private void next(long delayMs) {
      if (response.writeQueueFull()) {
        response.drainHandler(drained -> next(delayMs));
        return;
      }
      if (delayMs == 0) {
        vertx.runOnContext(now -> poll());
      } else {
        vertx.setTimer(delayMs, fired -> poll());
      }
    }

    private void begin() {
      if (!response.headWritten()) {
        response.setChunked(true).putHeader("Content-Type", "application/x-ndjson");
        response.write("");
      }
    }

    /**
     * Before the first line, any failure is an ordinary error answer (410 for a cursor past
     * retention). After it, a host that is unavailable is waited out; anything else ends the
     * stream with an error line.
     */
    private void failed(Throwable failure) {
      if (response.headWritten() && failure instanceof GraphException graph
          && graph.code() == GraphException.Code.UNAVAILABLE) {
        next(POLL_MS);
      } else {
        end(failure);
      }
    }

    /** Ends the follow with {@code failure}: an error answer before the first line, an error line after it. */
    private void end(Throwable failure) {
      closed = true;
      if (membership != null) {
        membership.leave();
      }
      if (!response.headWritten()) {
        ctx.fail(failure);
      } else {
        response.end(ApiJson.buffer(AdminJson.failedLine(failure)).appendString("\n"));
      }
    }
  }
}
