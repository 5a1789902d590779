package io.quiver.core.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.slf4j.LoggerFactory;

/**
 * The log lines a test provokes, caught instead of printed. A test of an error path makes the
 * code under test log at WARN or ERROR on purpose; printed, those lines read as failures in a
 * green build. Opened around the provoking code, this catches everything the named loggers (and
 * their children) log, keeps it from the console, and lets the test assert on it — that the
 * error was reported, and that nothing else was. Closing puts the loggers back as they were.
 *
 * <pre>{@code
 * try (ExpectedLog log = ExpectedLog.of(ZkDocumentWatcher.class)) {
 *   writeAnInvalidDocument();
 *   assertThat(log.await(Level.ERROR, "invalid document", Duration.ofSeconds(5))).contains("keeping version 1");
 * }
 * }</pre>
 */
public final class ExpectedLog implements AutoCloseable {
  private final List<Logger> loggers = new ArrayList<>();
  private final List<Boolean> additivity = new ArrayList<>();
  private final List<ILoggingEvent> events = new CopyOnWriteArrayList<>();
  private final AppenderBase<ILoggingEvent> catcher = new AppenderBase<>() {
    @Override
    protected void append(ILoggingEvent event) {
      events.add(event);
    }
  };

  private ExpectedLog(List<String> names) {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    catcher.setContext(context);
    catcher.setName("expected-log");
    catcher.start();
    for (String name : names) {
      Logger logger = context.getLogger(name);
      loggers.add(logger);
      additivity.add(logger.isAdditive());
      logger.addAppender(catcher);
      logger.setAdditive(false);
    }
  }

  /** Catches what the loggers of these classes log. */
  public static ExpectedLog of(Class<?>... sources) {
    return named(Arrays.stream(sources).map(Class::getName).toArray(String[]::new));
  }

  /** Catches what these loggers and their children log: a package name catches the package. */
  public static ExpectedLog named(String... loggerNames) {
    return new ExpectedLog(List.of(loggerNames));
  }

  /** The messages caught so far at {@code level} or above, formatted, in order. */
  public List<String> messages(Level level) {
    return events.stream().filter(atLeast(level)).map(ILoggingEvent::getFormattedMessage).toList();
  }

  /** The names of the loggers that logged at {@code level} or above, in order. */
  public List<String> loggers(Level level) {
    return events.stream().filter(atLeast(level)).map(ILoggingEvent::getLoggerName).toList();
  }

  /**
   * The first message at {@code level} or above containing {@code text}, waiting up to {@code
   * within} for it to be logged (by another thread, say); fails the test if none comes.
   */
  public String await(Level level, String text, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      for (String message : messages(level)) {
        if (message.contains(text)) {
          return message;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no " + level + " line containing '" + text + "' within " + within
            + "; caught: " + messages(Level.TRACE));
      }
      Thread.sleep(10);
    }
  }

  private static Predicate<ILoggingEvent> atLeast(Level level) {
    return event -> event.getLevel().isGreaterOrEqual(level);
  }

  @Override
  public void close() {
    for (int i = 0; i < loggers.size(); i++) {
      loggers.get(i).setAdditive(additivity.get(i));
      loggers.get(i).detachAppender(catcher);
    }
    catcher.stop();
  }
}
