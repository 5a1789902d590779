package io.quiver.client.example;

import io.quiver.client.Edge;
import io.quiver.client.EdgePage;
import io.quiver.client.EdgeQuery;
import io.quiver.client.Node;
import io.quiver.client.QuiverClient;
import java.net.URI;
import java.util.Map;

/**
 * A board page, the way a product engineer builds one: a user, their board, some pins on it, a
 * like; then the board's pins newest first, a page at a time, with counts. No shard in sight.
 *
 * <p>Run it against {@code ./quiver dev} with {@code ./quiver example board-page}.
 */
public final class BoardPage {
  private BoardPage() {}

  public static void main(String[] args) {
    URI quiverUrl = URI.create(args.length > 0 ? args[0] : "http://localhost:8080");
    try (QuiverClient quiver = QuiverClient.create(quiverUrl)) {
      Node ada = quiver.createNode("user", Map.of("name", "Ada"));
      Node board = quiver.createNode("board", Map.of("title", "Weeknight dinners", "owner", Long.toString(ada.id())),
          ada.id());
      for (String dish : new String[] {"Dal", "Shakshuka", "Pad see ew", "Risotto", "Tacos"}) {
        // Pins live beside their board, so the page below reads one shard for its nodes.
        Node pin = quiver.createNode("pin", Map.of("link", "https://example.com/" + dish.toLowerCase().replace(' ', '-'),
            "details", dish), board.id());
        quiver.addEdge(board.id(), "board_has_pins", pin.id());
      }
      EdgePage firstTwo = quiver.getEdges(board.id(), "board_has_pins", EdgeQuery.newestFirst().limit(2).hydrate(true));
      Node liked = firstTwo.edges().get(0).node();
      quiver.addEdge(ada.id(), "user_likes_pins", liked.id());

      System.out.printf("%s's board \"%s\" (%d pins)%n", ada.data().get("name").asText(),
          board.data().get("title").asText(), quiver.countEdges(board.id(), "board_has_pins"));
      EdgeQuery page = EdgeQuery.newestFirst().limit(2).hydrate(true);
      int number = 1;
      while (true) {
        EdgePage pins = quiver.getEdges(board.id(), "board_has_pins", page);
        System.out.printf("  page %d:%n", number++);
        for (Edge edge : pins.edges()) {
          System.out.printf("    %-12s %s%s%n", edge.node().data().get("details").asText(),
              edge.node().data().get("link").asText(), edge.to() == liked.id() ? "  (liked by Ada)" : "");
        }
        if (!pins.hasNext()) {
          break;
        }
        page = page.after(pins.next());
      }
      System.out.printf("Ada likes %d pin(s)%n", quiver.countEdges(ada.id(), "user_likes_pins"));
    }
  }
}
