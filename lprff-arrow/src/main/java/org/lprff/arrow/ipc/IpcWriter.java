package org.lprff.arrow.ipc;

import com.google.flatbuffers.FlatBufferBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flatbuf.KeyValue;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowFooter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes the Arrow IPC framing of a feature file: the schema message, record batch messages each
 * carrying the CRC32C of its body in the message's custom metadata ({@link BodyChecksum#KEY}),
 * and the end-of-stream marker; the {@link File} subclass adds the magic and the footer. Arrow
 * Java 19's own writers cannot put custom metadata on a record batch message, so the messages are
 * built here, byte for byte as {@code MessageSerializer.serialize} lays them out, plus that one
 * key; readers that do not know it ignore it (the IPC format allows custom metadata on every
 * message). Not thread-safe. Internal (package {@code org.lprff.arrow.ipc} is not exported): the
 * feature file and model file writers frame through it.
 */
public abstract sealed class IpcWriter permits IpcWriter.File, IpcWriter.Stream {

  private static final IpcOption OPTION = IpcOption.DEFAULT;
  private static final byte[] MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);

  final WriteChannel out;
  final Schema schema;
  private final List<ArrowBlock> blocks = new ArrayList<>();

  private IpcWriter(Schema schema, WritableByteChannel channel) {
    this.schema = schema;
    this.out = new WriteChannel(channel);
  }

  /** The IPC file framing (random access; can be mapped). */
  public static IpcWriter file(Schema schema, WritableByteChannel channel) {
    return new File(schema, channel);
  }

  /** The IPC stream framing (read front to back). */
  public static IpcWriter stream(Schema schema, WritableByteChannel channel) {
    return new Stream(schema, channel);
  }

  /** Writes what comes before the first record batch. */
  public final void start() throws IOException {
    startFraming();
    MessageSerializer.serialize(out, schema, OPTION);
  }

  /**
   * Writes {@code batch} as one encapsulated message: 0xFFFFFFFF, the padded metadata length, the
   * flatbuffer {@code Message} (with the body's checksum) padded to 8 bytes, then the body.
   *
   * @return where it lies in the output
   */
  public final ArrowBlock write(ArrowRecordBatch batch) throws IOException {
    long start = out.getCurrentPosition();
    ByteBuffer metadata = metadata(batch, BodyChecksum.body(batch));
    int prefix = 8;
    int metadataLength = metadata.remaining();
    int misalignment = (int) ((start + prefix + metadataLength) % 8);
    if (misalignment != 0) {
      metadataLength += 8 - misalignment;
    }
    out.writeIntLittleEndian(MessageSerializer.IPC_CONTINUATION_TOKEN);
    out.writeIntLittleEndian(metadataLength);
    out.write(metadata);
    out.align();
    long bodyLength = MessageSerializer.writeBatchBuffers(out, batch);
    ArrowBlock block = new ArrowBlock(start, prefix + metadataLength, bodyLength);
    blocks.add(block);
    return block;
  }

  /** Writes the end-of-stream marker and what the framing puts after it. */
  public final void end() throws IOException {
    out.writeIntLittleEndian(MessageSerializer.IPC_CONTINUATION_TOKEN);
    out.writeIntLittleEndian(0);
    endFraming(List.copyOf(blocks));
  }

  abstract void startFraming() throws IOException;

  abstract void endFraming(List<ArrowBlock> recordBatches) throws IOException;

  /** The record batch's {@code Message} flatbuffer with {@code lprff.crc32c} in its metadata. */
  private static ByteBuffer metadata(ArrowRecordBatch batch, int checksum) {
    FlatBufferBuilder builder = new FlatBufferBuilder();
    int header = batch.writeTo(builder);
    int pair = KeyValue.createKeyValue(builder, builder.createString(BodyChecksum.KEY),
        builder.createString(BodyChecksum.format(checksum)));
    int custom = Message.createCustomMetadataVector(builder, new int[] {pair});
    Message.startMessage(builder);
    Message.addHeaderType(builder, MessageHeader.RecordBatch);
    Message.addHeader(builder, header);
    Message.addVersion(builder, OPTION.metadataVersion.toFlatbufID());
    Message.addBodyLength(builder, batch.computeBodyLength());
    Message.addCustomMetadata(builder, custom);
    builder.finish(Message.endMessage(builder));
    return builder.dataBuffer();
  }

  static final class File extends IpcWriter {
    private File(Schema schema, WritableByteChannel channel) {
      super(schema, channel);
    }

    @Override
    void startFraming() throws IOException {
      out.write(MAGIC);
      out.align();
    }

    /** The footer (schema and record batch index), its int32 length, the magic. */
    @Override
    void endFraming(List<ArrowBlock> recordBatches) throws IOException {
      long footerStart = out.getCurrentPosition();
      out.write(new ArrowFooter(schema, List.of(), recordBatches), false);
      out.writeIntLittleEndian(Math.toIntExact(out.getCurrentPosition() - footerStart));
      out.write(MAGIC);
    }
  }

  static final class Stream extends IpcWriter {
    private Stream(Schema schema, WritableByteChannel channel) {
      super(schema, channel);
    }

    @Override
    void startFraming() {}

    @Override
    void endFraming(List<ArrowBlock> recordBatches) {}
  }
}
