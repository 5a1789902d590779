package io.quiver.api.http;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import io.quiver.core.GraphException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;

/**
 * Reads a request body as exactly one JSON document, refusing — with 400 and one sentence that
 * says what and where, never a parser's internals — whatever MySQL would store differently from
 * what was sent or refuse with a server error:
 *
 * <ul>
 *   <li>bytes that are not UTF-8 (overlong forms, encoded surrogates, code points past U+10FFFF);
 *   <li>strings or member names holding an unpaired surrogate ({@code "\ud800"}): MariaDB would
 *       store {@code ?} and the copies of an edge would differ;
 *   <li>numbers beyond the range of a double ({@code 1e400}), which would be stored as strings;
 *   <li>anything after the document;
 *   <li>{@code data} nested deeper than MariaDB stores ({@link #MAX_DATA_DEPTH}): 422, naming the path.
 * </ul>
 */
final class JsonBodies {
  /**
   * The deepest {@code data} MariaDB stores, counting {@code data} itself: its JSON columns refuse
   * documents nested 32 levels or more (found against MariaDB 11.4 by
   * {@code HostileRequestsTest.dataNestedDeeperThanMariaDbStores…}).
   */
  static final int MAX_DATA_DEPTH = 31;
  /** The parser stops well before its own default of 1,000 levels. */
  private static final int MAX_BODY_DEPTH = 64;

  private static final ObjectMapper STRICT = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  static {
    STRICT.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_BODY_DEPTH).build());
  }

  private JsonBodies() {}

  /** The one JSON document the bytes hold, checked as above. */
  static JsonNode read(byte[] bytes) {
    String text = utf8(bytes);
    JsonNode json;
    try {
      json = STRICT.readTree(text);
    } catch (StreamConstraintsException tooDeep) {
      throw GraphException.invalid("the body nests deeper than " + MAX_BODY_DEPTH + " levels");
    } catch (MismatchedInputException trailing) {
      throw GraphException.invalid("the body holds more than one JSON document" + where(trailing.getLocation()));
    } catch (JsonParseException malformed) {
      throw GraphException.invalid("the body is not valid JSON" + where(malformed.getLocation()) + ": "
          + reason(malformed));
    } catch (JsonProcessingException other) {
      throw GraphException.invalid("the body is not valid JSON" + where(other.getLocation()));
    }
    if (json == null || json.isMissingNode()) {
      throw GraphException.invalid("the body is empty");
    }
    check(json, "", 0);
    return json;
  }

  /** How deep {@code data} nests: 1 for an object of scalars. */
  static int depth(JsonNode json) {
    int deepest = 0;
    for (JsonNode child : json) {
      deepest = Math.max(deepest, depth(child));
    }
    return json.isContainerNode() ? deepest + 1 : 0;
  }

  /** Refuses {@code data} nested deeper than MariaDB stores, naming the first path too deep. */
  static void requireStorableDepth(JsonNode data, String path) {
    String tooDeep = firstBeyond(data, path, 1);
    if (tooDeep != null) {
      throw GraphException.of(GraphException.Code.SCHEMA_VIOLATION,
          "data nests deeper than " + MAX_DATA_DEPTH + " levels at " + tooDeep,
          Map.of("fields", Map.of(tooDeep, "nests deeper than " + MAX_DATA_DEPTH + " levels")));
    }
  }

  private static String firstBeyond(JsonNode json, String path, int level) {
    if (!json.isContainerNode()) {
      return null;
    }
    if (level > MAX_DATA_DEPTH) {
      return path;
    }
    if (json.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> members = json.fields(); members.hasNext(); ) {
        Map.Entry<String, JsonNode> member = members.next();
        String found = firstBeyond(member.getValue(), path + "." + member.getKey(), level + 1);
        if (found != null) {
          return found;
        }
      }
    } else {
      for (int i = 0; i < json.size(); i++) {
        String found = firstBeyond(json.get(i), path + "[" + i + "]", level + 1);
        if (found != null) {
          return found;
        }
      }
    }
    return null;
  }

  private static void check(JsonNode json, String path, int depth) {
    if (json.isTextual()) {
      requireWholeCharacters(json.textValue(), path);
    } else if (json.isFloatingPointNumber() && !Double.isFinite(json.doubleValue())) {
      throw GraphException.invalid(name(path) + " is a number beyond the range of a 64-bit float");
    } else if (json.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> members = json.fields(); members.hasNext(); ) {
        Map.Entry<String, JsonNode> member = members.next();
        String memberPath = path.isEmpty() ? member.getKey() : path + "." + member.getKey();
        requireWholeCharacters(member.getKey(), memberPath);
        check(member.getValue(), memberPath, depth + 1);
      }
    } else if (json.isArray()) {
      for (int i = 0; i < json.size(); i++) {
        check(json.get(i), path + "[" + i + "]", depth + 1);
      }
    }
  }

  /** Refuses an unpaired UTF-16 surrogate: no character, and no UTF-8 can hold it. */
  private static void requireWholeCharacters(String text, String path) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw GraphException.invalid(name(path) + " holds an unpaired surrogate (\\\\u"
            + Integer.toHexString(c) + "), which is not a character");
      }
    }
  }

  private static String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException notUtf8) {
      throw GraphException.invalid("the body is not UTF-8: it holds a malformed or overlong byte sequence,"
          + " an encoded surrogate, or a code point beyond U+10FFFF");
    }
  }

  private static String name(String path) {
    return path.isEmpty() ? "the body" : "'" + path + "'";
  }

  private static String where(JsonLocation location) {
    return location == null || location.getLineNr() < 1 ? ""
        : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
  }

  /** The parser's complaint in one clause: its first sentence, without hints about its own settings. */
  private static String reason(JsonParseException malformed) {
    String message = malformed.getOriginalMessage();
    if (message == null) {
      return "malformed";
    }
    int cut = message.length();
    for (String end : new String[] {"\n", " (", ": was expecting", "; ", ": enable", " `", ": "}) {
      int at = message.indexOf(end);
      if (at > 0) {
        cut = Math.min(cut, at);
      }
    }
    return message.substring(0, cut).replace("Unexpected character", "unexpected character")
        .replace("Unrecognized token", "unrecognized token");
  }
}
