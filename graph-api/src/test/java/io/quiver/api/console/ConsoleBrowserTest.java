package io.quiver.api.console;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.testing.ApiFixture;
import io.quiver.store.testing.TestBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The admin console in a real headless Chromium (Debian's {@code chromium}, driven through its
 * {@code chromedriver}) against a real server with real hosts: signing in, the cluster page, a
 * field defined in the browser whose default a stored node then shows in the explorer, and an
 * incompatible change refused with its rule. Each page is photographed into
 * {@code target/console-screenshots} (the README's pictures: copy them to {@code docs/console}).
 *
 * <p>Without Chromium the tests are skipped, saying why — {@code .ci/run} installs it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest {
  private static final Path SHOTS = Path.of(System.getProperty("quiver.console.screenshots", "target/console-screenshots"));
  private static ApiFixture api;
  private static ChromeDriver browser;
  private static WebDriverWait wait;
  private static String base;
  private static String noteType;
  private static String noteId;
  private static int noteTypeId;

  @BeforeAll
  static void start() throws Exception {
    Path chromium = firstExisting(System.getenv("QUIVER_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser");
    Path driver = firstExisting(System.getenv("QUIVER_CHROMEDRIVER"), "/usr/bin/chromedriver",
        "/usr/lib/chromium/chromedriver");
    if (chromium == null || driver == null) {
      System.err.println("ConsoleBrowserTest skipped: no Chromium and chromedriver here"
          + " (apt-get install chromium chromium-driver, as .ci/run does)");
    }
    Assumptions.assumeTrue(chromium != null && driver != null,
        "no Chromium and chromedriver (apt-get install chromium chromium-driver)");
    api = new ApiFixture();
    base = "http://127.0.0.1:" + api.port();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        "--window-size=1280,960");
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver.toFile())
        .usingAnyFreePort().build();
    browser = new ChromeDriver(service, options);
    wait = new WebDriverWait(browser, Duration.ofSeconds(15));
    Files.createDirectories(SHOTS);
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.quit();
    }
    if (api != null) {
      api.close();
    }
  }

  private static Path firstExisting(String... candidates) {
    for (String candidate : candidates) {
      if (candidate != null && Files.isExecutable(Path.of(candidate))) {
        return Path.of(candidate);
      }
    }
    return null;
  }

  private static WebElement visible(String css) {
    return wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(css)));
  }

  private static void awaitText(String css, String text) {
    try {
      wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(css), text));
    } catch (org.openqa.selenium.TimeoutException late) {
      throw new AssertionError("'" + text + "' not in " + css + "; the page reads:\n"
          + browser.findElement(By.tagName("main")).getText(), late);
    }
  }

  /** Replaces what a field holds: the page is not reloaded between tests that change only its hash. */
  private static void type(String id, String text) {
    WebElement field = browser.findElement(By.id(id));
    field.clear();
    field.sendKeys(text);
  }

  private static void screenshot(String page) throws IOException {
    Path shot = browser.getScreenshotAs(OutputType.FILE).toPath();
    Files.copy(shot, SHOTS.resolve(page + ".png"), StandardCopyOption.REPLACE_EXISTING);
  }

  private static void signIn(String token) {
    WebElement field = visible("#token");
    field.clear();
    field.sendKeys(token);
    browser.findElement(By.cssSelector("#sign-in-form button")).click();
  }

  @Test
  @Order(1)
  void signingIn_withAWrongToken_showsTheRefusal_andWithTheAdminToken_opensTheClusterPage() throws Exception {
    browser.get(base + "/console");

    signIn("not-the-token");
    awaitText("#sign-in-error", "the admin token is not valid");
    assertThat(browser.findElement(By.id("nav")).isDisplayed()).isFalse();

    signIn(TestBackend.ADMIN_TOKEN);
    awaitText("#versions", "shard map version");
    awaitText("#hosts tbody", "h2");
    List<WebElement> hosts = browser.findElements(By.cssSelector("#hosts tbody tr"));
    assertThat(hosts).hasSize(2);
    assertThat(hosts.get(0).getText()).startsWith("h1 127.0.0.1:").contains(" up 4 ");
    assertThat(browser.findElement(By.cssSelector("#ranges tbody")).getText())
        .contains("0–3 h1 read-write yes").contains("4–7 h2 read-write yes");
    awaitText("#move", "No shard move is under way.");
    awaitText("#failovers-none", "No failover or switchover is recorded.");
    assertThat(browser.findElements(By.cssSelector("#failovers tbody tr"))).isEmpty();
    assertThat(browser.executeScript("return sessionStorage.getItem('quiver.token')")).isEqualTo(TestBackend.ADMIN_TOKEN);
    assertThat(browser.executeScript("return localStorage.length")).isEqualTo(0L);
    screenshot("cluster");
  }

  @Test
  @Order(2)
  void aFieldDefinedInTheConsole_showsItsDefaultOnAStoredNodeInTheExplorer() throws Exception {
    noteType = "console_note_" + System.nanoTime();
    int id = 0;
    for (var type : api.call(GET, "/v1/schema").body().get("nodeTypes")) {
      id = Math.max(id, type.get("id").asInt());
    }
    Map<String, String> admin = Map.of("Authorization", "Bearer " + TestBackend.ADMIN_TOKEN);
    assertThat(api.call(PUT, "/v1/schema/node-types/" + noteType,
        "{\"id\": " + (id + 1) + ", \"fields\": {\"text\": {\"type\": \"string\", \"default\": \"\"}}}", admin).status())
        .isEqualTo(200);
    noteId = api.call(POST, "/v1/nodes/" + noteType, "{\"data\": {\"text\": \"stored before the field\"}}").id();

    browser.get(base + "/console/#schema");
    awaitText("#node-types tbody", noteType);
    new Select(browser.findElement(By.id("define-kind"))).selectByValue("node");
    noteTypeId = id + 1;
    type("define-name", noteType);
    type("define-body", "{\"id\": " + noteTypeId + ", \"fields\": {\"text\": {\"type\": \"string\", \"default\": \"\"},"
        + " \"mood\": {\"type\": \"string\", \"default\": \"curious\"}}}");
    browser.findElement(By.id("define-check")).click();
    awaitText("#verdict", "Allowed");
    assertThat(browser.findElement(By.id("verdict")).getText()).contains("+ mood: string = \"curious\"");
    browser.executeScript("document.getElementById('verdict').scrollIntoView({block: 'end'})");
    screenshot("schema");
    browser.findElement(By.id("define-apply")).click();
    awaitText("#verdict", "Defined: schema version");
    awaitText("#node-types tbody", "mood: string = \"curious\"");

    browser.get(base + "/console/#explorer");
    visible("#node-id");
    type("node-id", noteId);
    browser.findElement(By.cssSelector("#lookup-id button")).click();
    awaitText("#node-data", "curious");
    assertThat(browser.findElement(By.id("node-data")).getText()).contains("\"text\": \"stored before the field\"")
        .contains("\"mood\": \"curious\"");
    assertThat(browser.findElement(By.id("node-meta")).getText()).contains("version 1");
  }

  @Test
  @Order(3)
  void anIncompatibleChange_isRefusedInTheConsole_withItsRule_andNothingChanges() {
    long before = api.call(GET, "/v1/schema").body().get("version").asLong();
    browser.get(base + "/console/#schema");
    awaitText("#node-types tbody", noteType);
    type("define-name", noteType);
    type("define-body", "{\"id\": " + noteTypeId + ", \"fields\": {\"text\": {\"type\": \"integer\"},"
        + " \"mood\": {\"type\": \"string\", \"default\": \"curious\"}}}");
    browser.findElement(By.id("define-check")).click();

    awaitText("#verdict", "Refused by rule");
    assertThat(browser.findElement(By.id("verdict")).getText()).contains("409 incompatible_change");
    assertThat(browser.findElement(By.id("define-apply")).isEnabled()).isFalse();
    assertThat(api.call(GET, "/v1/schema").body().get("version").asLong()).isEqualTo(before);
  }

  @Test
  @Order(4)
  void theExplorer_pagesAnEdgeList_checksEachInverseCopy_andFollowsAnEdge() throws Exception {
    String board = api.call(POST, "/v1/nodes/board", "{\"data\": {\"title\": \"Console board\"}}").id();
    String pin = api.call(POST, "/v1/nodes/pin", "{\"data\": {\"link\": \"https://example.com/console\"}}").id();
    api.call(PUT, "/v1/nodes/" + board + "/edges/board_has_pins/" + pin + "?waitForInverse=true", null);

    browser.get(base + "/console/#explorer");
    visible("#node-id");
    type("node-id", board);
    browser.findElement(By.cssSelector("#lookup-id button")).click();
    awaitText("[data-edge-type=board_has_pins] h4", "(1)");
    awaitText("[data-edge-type=board_has_pins] tbody", "matches");
    screenshot("explorer");

    browser.findElement(By.linkText(pin)).click();
    awaitText("#node-title", "pin " + pin);
    assertThat(browser.findElement(By.id("node-data")).getText()).contains("https://example.com/console");

    String handle = "console" + System.nanoTime();
    String account = api.call(POST, "/v1/nodes/account", "{\"data\": {\"handle\": \"" + handle + "\"}}").id();
    type("key-type", "account");
    type("key-field", "handle");
    type("key-value", handle);
    browser.findElement(By.cssSelector("#lookup-key button")).click();
    awaitText("#node-title", "account " + account);
  }

  @Test
  @Order(5)
  void theCharts_drawThisServersFiguresEveryTwoSeconds() throws Exception {
    browser.get(base + "/console/#charts");
    visible("#chart-rate");
    // Reads of one node while the charts sample: a rate above zero, and cache hits. Stopped by a
    // flag, not an interrupt: an interrupt landing in a call's wait would kill the thread loudly.
    java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
    Thread load = new Thread(() -> {
      while (!stop.get()) {
        api.call(GET, "/v1/nodes/" + noteId);
        try {
          Thread.sleep(20);
        } catch (InterruptedException interrupted) {
          return;
        }
      }
    });
    load.start();
    try {
      wait.until(driver -> ((Number) browser.executeScript(
          "const c = Chart.getChart(document.getElementById('chart-rate'));"
              + " return c ? c.data.labels.length : 0;")).intValue() >= 4);
    } finally {
      stop.set(true);
      load.join();
    }
    Object rate = browser.executeScript(
        "const d = Chart.getChart(document.getElementById('chart-rate')).data.datasets[0].data;"
            + " return Math.max(...d);");
    assertThat(((Number) rate).doubleValue()).isGreaterThan(0);
    Object nodesHitRatio = browser.executeScript(
        "const d = Chart.getChart(document.getElementById('chart-cache')).data.datasets.find(s => s.label === 'nodes');"
            + " return Math.max(...d.data.filter(v => v !== null));");
    assertThat(((Number) nodesHitRatio).doubleValue()).isGreaterThan(0.5);
    screenshot("charts");
  }
}
