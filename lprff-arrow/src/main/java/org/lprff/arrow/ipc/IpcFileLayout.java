package org.lprff.arrow.ipc;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.flatbuf.Footer;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.vector.BufferLayout;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowFooter;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The layout of an Arrow IPC file read from its metadata alone: the footer (schema and record
 * batch blocks) and, for every record batch, its row count and the file offsets of its buffers.
 * No record batch body is read. Every offset and length is checked against the file, so a
 * truncated or corrupted file fails here, with a message naming it, rather than later.
 *
 * <p>File format (Arrow columnar spec, "IPC File Format"): {@code ARROW1} + 2 padding bytes, the
 * stream (schema message, record batches, optionally an end-of-stream marker), the flatbuffer
 * footer, its int32 little-endian length, {@code ARROW1}. Each message is encapsulated:
 * 0xFFFFFFFF, an int32 length, the flatbuffer {@code Message} with padding, then its body. The
 * footer indexes the stream; this class reads both and requires them to agree (same schema, same
 * record batch blocks), so a corrupted footer that still parses is refused too.
 *
 * <p>Internal (package {@code org.lprff.arrow.ipc} is not exported): the feature file readers,
 * the checksum verification and the Arrow row source read through it.
 */
public final class IpcFileLayout {

  private static final byte[] MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);
  private static final int CONTINUATION = 0xFFFFFFFF;
  /** Header magic plus padding. */
  private static final int HEADER_BYTES = 8;
  /** Footer length plus trailing magic. */
  private static final int TRAILER_BYTES = 4 + MAGIC.length;

  /**
   * One record batch: body bytes [bodyOffset, bodyOffset + bodyLength) of the file; buffer k at
   * file offset {@code bodyOffset + bufferOffsets[k]}, {@code bufferLengths[k]} bytes; node j
   * (depth-first field order) has {@code nodeLengths[j]} values and {@code nullCounts[j]} nulls;
   * {@code checksum} is the CRC32C of the body stored in the message ({@link BodyChecksum}), or
   * -1 for a batch written without one.
   */
  public record Batch(
      long bodyOffset,
      long bodyLength,
      long checksum,
      int rows,
      boolean compressed,
      long[] bufferOffsets,
      long[] bufferLengths,
      long[] nodeLengths,
      long[] nullCounts) {

    /** The absolute file offset of buffer k. */
    public long bufferStart(int k) {
      return bodyOffset + bufferOffsets[k];
    }
  }

  private final Path path;
  private final long fileSize;
  private final Schema schema;
  private final List<ArrowBlock> blocks;
  private final List<Batch> batches;
  /** First node index of each top-level field (depth-first order). */
  private final int[] firstNode;
  /** First buffer index of each top-level field (depth-first order). */
  private final int[] firstBuffer;

  private IpcFileLayout(
      Path path, long fileSize, Schema schema, List<ArrowBlock> blocks, List<Batch> batches,
      int[] firstNode, int[] firstBuffer) {
    this.path = path;
    this.fileSize = fileSize;
    this.schema = schema;
    this.blocks = blocks;
    this.batches = batches;
    this.firstNode = firstNode;
    this.firstBuffer = firstBuffer;
  }

  /**
   * Reads the layout of the IPC file open on {@code channel} (positional reads only).
   *
   * @throws IOException naming {@code path} if the file is not a well-formed Arrow IPC file
   */
  public static IpcFileLayout read(Path path, FileChannel channel) throws IOException {
    try {
      return parse(path, channel);
    } catch (RuntimeException e) {
      // Flatbuffer accessors on corrupted bytes throw IndexOutOfBounds and friends.
      throw corrupt(path, "unreadable metadata (" + e + ")", e);
    }
  }

  /**
   * Checks the structure of the Arrow IPC file ({@code stream} false) or stream open on {@code
   * channel} from its metadata, as {@link #read} and {@link #readStream} do, before one of Arrow's
   * own readers reads it: those leak a body, or fail with an exception naming no file, on some
   * malformed metadata. Positional reads only; the channel's position is unchanged.
   *
   * @throws IOException naming {@code path} if the file or stream is malformed
   */
  public static void check(Path path, FileChannel channel, boolean stream) throws IOException {
    if (stream) {
      readStream(path, channel);
    } else {
      read(path, channel);
    }
  }

  /**
   * Reads the layout of the IPC stream open on {@code channel} (positional reads only), walking
   * its messages from byte 0 to the end-of-stream marker or the end of the file: the schema,
   * then record batches, each checked as a file's are ({@link #blocks()} then lists where they
   * lie). Arrow's stream reader leaks the body it has read when a batch's metadata is bad (a
   * buffer outside the body, a node of more than INT_MAX values), so streams from outside are
   * walked here first.
   *
   * @throws IOException naming {@code path} if the stream is malformed, has dictionaries, or ends
   *     inside a message
   */
  public static IpcFileLayout readStream(Path path, FileChannel channel) throws IOException {
    try {
      return parseStream(path, channel);
    } catch (RuntimeException e) {
      throw corrupt(path, "unreadable metadata (" + e + ")", e);
    }
  }

  private static IpcFileLayout parseStream(Path path, FileChannel channel) throws IOException {
    long size = channel.size();
    String end = "the end of the file";
    Encapsulated first = message(path, channel, 0, size, end, "the schema message");
    if (first == null || first.message().headerType() != MessageHeader.Schema) {
      throw corrupt(path, "its stream does not start with a schema message", null);
    }
    checkNesting(path, schemaOf(first.message()), "schema message");
    Schema schema = MessageSerializer.deserializeSchema(first.message());
    Counts counts = Counts.of(schema);
    long position = first.metadataLength() + first.message().bodyLength();
    List<ArrowBlock> blocks = new ArrayList<>();
    List<Batch> batches = new ArrayList<>();
    // A stream may end without its end-of-stream marker (Arrow's readers accept that).
    walkBatches(path, channel, position, size, end, counts, blocks, batches);
    return new IpcFileLayout(path, size, schema, List.copyOf(blocks), List.copyOf(batches),
        counts.firstNode(), counts.firstBuffer());
  }

  /**
   * Walks the record batch messages from {@code position} to the end-of-stream marker or byte
   * {@code end} (named {@code endName}), metadata only, adding each one's block and checked
   * layout.
   */
  private static void walkBatches(Path path, FileChannel channel, long position, long end,
      String endName, Counts counts, List<ArrowBlock> blocks, List<Batch> batches)
      throws IOException {
    while (position < end) {
      String what = "record batch " + batches.size();
      Encapsulated next = message(path, channel, position, end, endName, what);
      if (next == null) {
        return; // end-of-stream marker
      }
      if (next.message().headerType() != MessageHeader.RecordBatch) {
        throw corrupt(path, what + " at byte " + position + " is a message of type "
            + MessageHeader.name(next.message().headerType())
            + ", expected RecordBatch (dictionaries are not read)", null);
      }
      long bodyLength = next.message().bodyLength();
      if (bodyLength < 0 || bodyLength > end - position - next.metadataLength()) {
        throw corrupt(path, what + " at byte " + position + " has a body of " + bodyLength
            + " bytes, past " + endName + " at byte " + end, null);
      }
      blocks.add(new ArrowBlock(position, next.metadataLength(), bodyLength));
      batches.add(batch(path, what, next.message(), position + next.metadataLength(), bodyLength,
          counts));
      position += next.metadataLength() + bodyLength;
    }
  }

  /**
   * The schema's fields in depth-first order (one per field node), its node and buffer counts,
   * and where each top-level field starts.
   */
  private record Counts(
      List<Field> flat, int nodes, int buffers, int[] firstNode, int[] firstBuffer) {
    static Counts of(Schema schema) {
      List<Field> fields = schema.getFields();
      List<Field> flat = new ArrayList<>();
      int[] firstNode = new int[fields.size()];
      int[] firstBuffer = new int[fields.size()];
      int[] counts = new int[2];
      for (int i = 0; i < fields.size(); i++) {
        firstNode[i] = counts[0];
        firstBuffer[i] = counts[1];
        count(fields.get(i), counts, flat);
      }
      return new Counts(List.copyOf(flat), counts[0], counts[1], firstNode, firstBuffer);
    }
  }

  /**
   * Deepest nesting of fields read. Arrow's schema conversion recurses once per level, and a
   * flatbuffer can nest fields without end (a child's offset pointing back at its ancestor): a
   * fuzzed file of 2,796 bytes overflowed the stack in {@code Field.convertField}. No feature or
   * model file nests fields at all.
   */
  public static final int MAX_NESTING = 64;

  /**
   * Most fields (at every level) read: a cycle of children that fans out would otherwise grow
   * exponentially within {@link #MAX_NESTING} levels.
   */
  static final int MAX_FIELDS = 1 << 16;

  private static org.apache.arrow.flatbuf.Schema schemaOf(Message message) {
    return (org.apache.arrow.flatbuf.Schema) message.header(new org.apache.arrow.flatbuf.Schema());
  }

  /**
   * Refuses a schema whose fields nest deeper than {@link #MAX_NESTING}, walking the flatbuffer
   * without recursion (so the walk itself cannot overflow) before Arrow converts it.
   */
  private static void checkNesting(Path path, org.apache.arrow.flatbuf.Schema schema, String where)
      throws IOException {
    if (schema == null) {
      return; // Arrow's conversion reports a missing schema itself
    }
    ArrayDeque<org.apache.arrow.flatbuf.Field> fields = new ArrayDeque<>();
    ArrayDeque<Integer> depths = new ArrayDeque<>();
    for (int i = 0; i < schema.fieldsLength(); i++) {
      fields.push(schema.fields(i));
      depths.push(1);
    }
    int seen = 0;
    while (!fields.isEmpty()) {
      org.apache.arrow.flatbuf.Field field = fields.pop();
      int depth = depths.pop();
      if (++seen > MAX_FIELDS) {
        throw corrupt(path, "its " + where + " has more than " + MAX_FIELDS
            + " fields (a corrupted or hostile schema)", null);
      }
      if (depth > MAX_NESTING) {
        throw corrupt(path, "its " + where + " nests fields more than " + MAX_NESTING
            + " levels deep (a corrupted or hostile schema)", null);
      }
      for (int k = 0; field != null && k < field.childrenLength(); k++) {
        fields.push(field.children(k));
        depths.push(depth + 1);
      }
    }
  }

  private static IpcFileLayout parse(Path path, FileChannel channel) throws IOException {
    long size = channel.size();
    if (size < HEADER_BYTES + TRAILER_BYTES) {
      throw corrupt(path, "it has " + size + " bytes, fewer than the " + (HEADER_BYTES + TRAILER_BYTES)
          + " of an empty Arrow IPC file", null);
    }
    ByteBuffer head = readFully(path, channel, 0, MAGIC.length);
    if (!Arrays.equals(array(head), MAGIC)) {
      throw corrupt(path, "it does not start with the Arrow file magic ARROW1 (an IPC stream,"
          + " or not Arrow?)", null);
    }
    ByteBuffer trailer = readFully(path, channel, size - TRAILER_BYTES, TRAILER_BYTES);
    int footerLength = trailer.getInt(0);
    byte[] tail = new byte[MAGIC.length];
    trailer.get(4, tail);
    if (!Arrays.equals(tail, MAGIC)) {
      throw corrupt(path, "it does not end with the Arrow file magic ARROW1 (truncated or still"
          + " being written?)", null);
    }
    long footerStart = size - TRAILER_BYTES - (long) footerLength;
    if (footerLength <= 0 || footerStart < HEADER_BYTES) {
      throw corrupt(path, "its footer length " + footerLength + " does not fit in " + size
          + " bytes", null);
    }
    ByteBuffer footerBytes = readFully(path, channel, footerStart, footerLength);
    Footer flatFooter = Footer.getRootAsFooter(footerBytes);
    checkNesting(path, flatFooter.schema(), "footer");
    ArrowFooter footer = new ArrowFooter(flatFooter);
    Schema schema = footer.getSchema();
    Counts counts = Counts.of(schema);

    // The footer is an index of the stream before it, which holds the schema again and every
    // record batch's metadata. Walking the stream (metadata only, bodies skipped) and requiring
    // the footer to agree catches a corrupted footer that still parses (e.g. as zero batches).
    long position = HEADER_BYTES;
    Encapsulated first = message(path, channel, position, footerStart, "the footer",
        "the schema message");
    // Arrow's JavaScript writer leaves the schema message out of a file's stream (the footer
    // holds the schema): the record batches then follow the magic directly.
    if (first != null && first.message().headerType() == MessageHeader.Schema) {
      checkNesting(path, schemaOf(first.message()), "schema message");
      Schema streamSchema = MessageSerializer.deserializeSchema(first.message());
      if (!streamSchema.equals(schema)) {
        throw corrupt(path, "its footer schema differs from its schema message", null);
      }
      position += first.metadataLength() + first.message().bodyLength();
    }
    List<ArrowBlock> blocks = new ArrayList<>();
    List<Batch> batches = new ArrayList<>();
    walkBatches(path, channel, position, footerStart, "the footer", counts, blocks, batches);
    if (!footer.getDictionaries().isEmpty() || !footer.getRecordBatches().equals(blocks)) {
      throw corrupt(path, "its footer lists " + footer.getRecordBatches().size()
          + " record batches and " + footer.getDictionaries().size() + " dictionaries, which do"
          + " not match the " + blocks.size() + " record batches of its stream", null);
    }
    return new IpcFileLayout(path, size, schema, List.copyOf(blocks), List.copyOf(batches),
        counts.firstNode(), counts.firstBuffer());
  }

  /** An encapsulated message: its flatbuffer and the bytes of prefix, flatbuffer and padding. */
  record Encapsulated(Message message, int metadataLength) {}

  /**
   * The encapsulated message at {@code position}, which must end by byte {@code end} (named
   * {@code endName} in messages): 0xFFFFFFFF, int32 length, flatbuffer (or the pre-1.0 form
   * without 0xFFFFFFFF); null for the end-of-stream marker (length 0).
   */
  static Encapsulated message(
      Path path, FileChannel channel, long position, long end, String endName, String what)
      throws IOException {
    if (position > end - 4) {
      throw corrupt(path, what + " at byte " + position + " runs into " + endName, null);
    }
    int prefix = 4;
    int length = readFully(path, channel, position, 4).getInt(0);
    if (length == CONTINUATION) {
      if (position > end - 8) {
        throw corrupt(path, what + " at byte " + position + " runs into " + endName, null);
      }
      prefix = 8;
      length = readFully(path, channel, position + 4, 4).getInt(0);
    }
    if (length == 0) {
      return null;
    }
    if (length < 0 || length > end - position - prefix) {
      throw corrupt(path, what + " at byte " + position + " has a message of " + length
          + " bytes, past " + endName + " at byte " + end, null);
    }
    ByteBuffer bytes = readFully(path, channel, position + prefix, length);
    return new Encapsulated(Message.getRootAsMessage(bytes), prefix + length);
  }

  /** Adds the nodes and buffers of {@code field} and its children (depth-first). */
  private static void count(Field field, int[] counts, List<Field> flat) {
    flat.add(field);
    counts[0]++;
    counts[1] += TypeLayout.getTypeBufferCount(field.getType());
    for (Field child : field.getChildren()) {
      count(child, counts, flat);
    }
  }

  private static Batch batch(
      Path path, String what, Message message, long bodyOffset, long bodyLength, Counts counts)
      throws IOException {
    int nodes = counts.nodes();
    int buffers = counts.buffers();
    RecordBatch header = (RecordBatch) message.header(new RecordBatch());
    if (header == null) {
      throw corrupt(path, what + " has no RecordBatch header", null);
    }
    long rows = header.length();
    if (rows < 0 || rows > Integer.MAX_VALUE) {
      throw corrupt(path, what + " has " + rows + " rows", null);
    }
    if (header.nodesLength() != nodes || header.buffersLength() != buffers) {
      throw corrupt(path, what + " has " + header.nodesLength() + " field nodes and "
          + header.buffersLength() + " buffers, but its schema needs " + nodes + " and " + buffers,
          null);
    }
    long[] nodeLengths = new long[nodes];
    long[] nullCounts = new long[nodes];
    for (int j = 0; j < nodes; j++) {
      nodeLengths[j] = header.nodes(j).length();
      nullCounts[j] = header.nodes(j).nullCount();
      // Arrow's loader refuses these with an IOException naming no file, after it has read
      // the body into a buffer it then leaks.
      if (nodeLengths[j] < 0 || nodeLengths[j] > Integer.MAX_VALUE
          || nullCounts[j] < 0 || nullCounts[j] > nodeLengths[j]) {
        throw corrupt(path, what + " has field node " + j + " of " + nodeLengths[j]
            + " values and " + nullCounts[j] + " nulls", null);
      }
    }
    long[] bufferOffsets = new long[buffers];
    long[] bufferLengths = new long[buffers];
    for (int k = 0; k < buffers; k++) {
      long at = header.buffers(k).offset();
      long bytes = header.buffers(k).length();
      if (at < 0 || bytes < 0 || at > bodyLength - bytes) {
        throw corrupt(path, what + " has buffer " + k + " at [" + at + ", " + at + " + " + bytes
            + ") outside its body of " + bodyLength + " bytes", null);
      }
      bufferOffsets[k] = at;
      bufferLengths[k] = bytes;
    }
    if (header.compression() == null) { // compressed buffers are smaller than their values
      requireValuesFit(path, what, counts, rows, nodeLengths, bufferLengths);
    }
    return new Batch(
        bodyOffset, bodyLength, BodyChecksum.stored(path, what, message), (int) rows,
        header.compression() != null,
        bufferOffsets, bufferLengths, nodeLengths, nullCounts);
  }

  /**
   * Refuses field nodes claiming more values than their buffers hold: every top-level column has
   * the batch's rows, a fixed-width column's data buffer holds its values, a fixed-size list's
   * child holds its lists' values. Arrow's loader trusts the lengths: it allocates a missing
   * validity buffer for all of them, and fails (leaking what it loaded before) or reads past the
   * body otherwise. So memory stays bounded by the file.
   */
  private static void requireValuesFit(Path path, String what, Counts counts, long rows,
      long[] nodeLengths, long[] bufferLengths) throws IOException {
    for (int top : counts.firstNode()) {
      if (nodeLengths[top] != rows) {
        throw corrupt(path, what + " has " + rows + " rows, but its column "
            + counts.flat().get(top).getName() + " has " + nodeLengths[top] + " values", null);
      }
    }
    int buffer = 0;
    for (int j = 0; j < counts.nodes(); j++) {
      Field field = counts.flat().get(j);
      List<BufferLayout> layouts = TypeLayout.getTypeLayout(field.getType()).getBufferLayouts();
      if (layouts.size() == 2 && layouts.get(0).getType() == BufferLayout.BufferType.VALIDITY
          && layouts.get(1).getType() == BufferLayout.BufferType.DATA) {
        // Arrow's BufferLayout keeps the width in a short: 4096 bytes and more wrap around.
        long bits = field.getType() instanceof ArrowType.FixedSizeBinary binary
            ? 8L * binary.getByteWidth()
            : layouts.get(1).getTypeBitWidth();
        long need = bits < 0 || nodeLengths[j] > Long.MAX_VALUE / Math.max(bits, 1)
            ? Long.MAX_VALUE
            : (nodeLengths[j] * bits + 7) / 8;
        if (bufferLengths[buffer + 1] < need) {
          throw corrupt(path, what + " column " + field.getName() + " has " + nodeLengths[j]
              + " values of " + bits + " bits, but its data buffer holds "
              + bufferLengths[buffer + 1] + " bytes", null);
        }
      }
      if (field.getType() instanceof ArrowType.FixedSizeList list
          && nodeLengths[j + 1] < nodeLengths[j] * list.getListSize()) {
        throw corrupt(path, what + " column " + field.getName() + " has " + nodeLengths[j]
            + " lists of " + list.getListSize() + " values, but only " + nodeLengths[j + 1]
            + " values", null);
      }
      buffer += layouts.size();
    }
  }

  private static ByteBuffer readFully(Path path, FileChannel channel, long position, int length)
      throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, position + buffer.position()) < 0) {
        throw new EOFException(path + ": ends before byte " + (position + length));
      }
    }
    return buffer.flip();
  }

  private static byte[] array(ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(buffer.position(), bytes);
    return bytes;
  }

  /** The failure of a malformed file or stream: it names {@code path}, then {@code why}. */
  public static IOException corrupt(Path path, String why, Throwable cause) {
    return new IOException(
        "file " + path + " is not a readable Arrow IPC file or stream: " + why, cause);
  }

  public Path path() {
    return path;
  }

  public long fileSize() {
    return fileSize;
  }

  public Schema schema() {
    return schema;
  }

  /** The record batch blocks (a file's footer's, or a stream's as walked), in order. */
  public List<ArrowBlock> blocks() {
    return blocks;
  }

  public List<Batch> batches() {
    return batches;
  }

  /** The depth-first index of the node of top-level field {@code field}. */
  public int firstNode(int field) {
    return firstNode[field];
  }

  /** The index of the first buffer of top-level field {@code field}. */
  public int firstBuffer(int field) {
    return firstBuffer[field];
  }

  /** The sum of the batches' rows. */
  public long rowCount() {
    long rows = 0;
    for (Batch b : batches) {
      rows += b.rows();
    }
    return rows;
  }
}
