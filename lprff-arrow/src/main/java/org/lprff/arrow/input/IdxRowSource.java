package org.lprff.arrow.input;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractList;
import java.util.List;

/**
 * Images of an IDX file (the MNIST / Fashion-MNIST format) as rows of pixels, with the labels of an
 * optional second IDX file, streamed in batches.
 *
 * <ul>
 *   <li>Images: magic {@code 0x00000803} (unsigned bytes, 3 dimensions), big-endian count, rows,
 *       columns, then count x rows x columns bytes; a row of the source is one image, row-major
 *       (column names {@code pixel0 ..}).
 *   <li>Labels: magic {@code 0x00000801}, count, then count unsigned bytes; the count must equal
 *       the images'.
 *   <li>Either file may be gzipped: recognized by its magic bytes 1f 8b, not by its name.
 *   <li>Pixel p becomes {@code (float) (p * scale)}, computed in double; with the default scale
 *       1/255 this is exactly the correctly rounded p / 255 for every p (checked by the tests).
 * </ul>
 *
 * <p>A file shorter than its header promises, or longer, is an {@link InputFormatException} naming
 * the expected and actual byte counts (of the decompressed content); so is a wrong magic number or
 * a count mismatch between the two files.
 */
public final class IdxRowSource extends AbstractRowSource {

  /** The conventional pixel scale, 1/255, mapping 0..255 to [0, 1]. */
  public static final double DEFAULT_SCALE = 1.0 / 255.0;

  static final int IMAGES_MAGIC = 0x00000803;
  static final int LABELS_MAGIC = 0x00000801;
  private static final int IMAGES_HEADER_BYTES = 16;
  private static final int LABELS_HEADER_BYTES = 8;

  private final Part images;
  private final Part labelsPart;
  private final int imageCount;
  private final int imageRows;
  private final int imageColumns;
  private final int columns;
  private final float[] pixelValue = new float[256];
  private final byte[] pixelBytes;
  private final byte[] labelBytes;

  private IdxRowSource(Path imagesPath, Path labelsPath, double scale, int maxBatchRows)
      throws IOException {
    if (imagesPath == null) {
      throw new IllegalArgumentException("images path is null");
    }
    if (!(scale > 0) || Double.isInfinite(scale)) {
      throw new IllegalArgumentException("scale is " + scale + ", expected a finite value > 0");
    }
    Part imagesFile = new Part(imagesPath, InputFiles.open(imagesPath));
    Part labelsFile = null;
    try {
      int[] header = imagesFile.header(IMAGES_MAGIC, 3, "images (unsigned bytes, 3 dimensions)");
      imageCount = header[0];
      imageRows = header[1];
      imageColumns = header[2];
      if ((long) imageRows * imageColumns > Integer.MAX_VALUE - 8
          || imageRows * imageColumns == 0) {
        throw new InputFormatException(
            imagesFile.name
                + ": images of "
                + imageRows
                + "x"
                + imageColumns
                + " pixels are not supported (expected 1 .. 2^31 - 9 pixels)");
      }
      columns = imageRows * imageColumns;
      imagesFile.expectedBytes = IMAGES_HEADER_BYTES + (long) imageCount * columns;
      // Before allocating a batch by the header's sizes: an uncompressed file must hold them,
      // and a gzipped one, whose size says nothing, must hold the first batch's images (read
      // ahead once), so memory follows the bytes present, not what a header claims.
      if (!InputFiles.isGzip(InputFiles.head(imagesPath, 2))) {
        if (imagesFile.expectedBytes > Files.size(imagesPath)) {
          throw new InputFormatException(imagesFile.name + " is truncated: the header promises "
              + imagesFile.expectedBytes + " bytes, found " + Files.size(imagesPath) + " ("
              + imageCount + " images of " + imageRows + "x" + imageColumns + " pixels)");
        }
      } else {
        long firstBatch = IMAGES_HEADER_BYTES
            + (long) Math.min(Math.max(imageCount, 0), Math.max(maxBatchRows, 1)) * columns;
        try (InputStream ahead = InputFiles.open(imagesPath)) {
          long got = skipFully(ahead, firstBatch);
          if (got < firstBatch) {
            throw new InputFormatException(imagesFile.name + " is truncated: the header promises "
                + imagesFile.expectedBytes + " bytes, found " + got + " (where the gzip stream"
                + " ends; " + imageCount + " images of " + imageRows + "x" + imageColumns
                + " pixels)");
          }
        }
      }
      if (labelsPath != null) {
        labelsFile = new Part(labelsPath, InputFiles.open(labelsPath));
        int labelCount =
            labelsFile.header(LABELS_MAGIC, 1, "labels (unsigned bytes, 1 dimension)")[0];
        labelsFile.expectedBytes = LABELS_HEADER_BYTES + (long) labelCount;
        if (labelCount != imageCount) {
          throw new InputFormatException(
              "images file "
                  + imagesFile.name
                  + " has "
                  + imageCount
                  + " images but labels file "
                  + labelsFile.name
                  + " has "
                  + labelCount
                  + " labels");
        }
      }
      if (imageCount == 0) {
        throw new InputFormatException(
            imagesFile.name + ": no data rows (the header counts 0 images)");
      }
      shape(columns, maxBatchRows, labelsFile != null, imagesFile.name);
    } catch (IOException | RuntimeException e) {
      imagesFile.in.close();
      if (labelsFile != null) {
        labelsFile.in.close();
      }
      throw e;
    }
    this.images = imagesFile;
    this.labelsPart = labelsFile;
    for (int p = 0; p < 256; p++) {
      pixelValue[p] = (float) (p * scale);
    }
    this.pixelBytes = new byte[maxBatchRows() * columns];
    this.labelBytes = labelsFile != null ? new byte[maxBatchRows()] : null;
  }

  /** Skips up to {@code n} bytes; returns how many there were. */
  private static long skipFully(InputStream in, long n) throws IOException {
    long done = 0;
    byte[] sink = new byte[8192];
    while (done < n) {
      int read = in.read(sink, 0, (int) Math.min(sink.length, n - done));
      if (read < 0) {
        break;
      }
      done += read;
    }
    return done;
  }

  /**
   * An IDX source.
   *
   * @param images the images file (0x00000803), gzipped or not
   * @param labels the labels file (0x00000801), or null for unlabelled rows
   * @param scale the factor applied to each pixel, e.g. {@link #DEFAULT_SCALE}
   */
  public static IdxRowSource open(Path images, Path labels, double scale, int maxBatchRows)
      throws IOException {
    return new IdxRowSource(images, labels, scale, maxBatchRows);
  }

  /** Images in the file, from its header. */
  public int imageCount() {
    return imageCount;
  }

  /** Pixel rows per image, from the header. */
  public int imageRows() {
    return imageRows;
  }

  /** Pixel columns per image, from the header. */
  public int imageColumns() {
    return imageColumns;
  }

  @Override
  public List<String> columnNames() {
    return new AbstractList<>() {
      @Override
      public String get(int index) {
        if (index < 0 || index >= columns) {
          throw new IndexOutOfBoundsException(index);
        }
        return "pixel" + index;
      }

      @Override
      public int size() {
        return columns;
      }
    };
  }

  @Override
  protected int read(int maxRows) throws IOException {
    long remaining = imageCount - rowsRead();
    int n = (int) Math.min(maxRows, remaining);
    int bytes = n * columns;
    images.readFully(pixelBytes, bytes);
    for (int i = 0; i < bytes; i++) {
      values[i] = pixelValue[pixelBytes[i] & 0xff];
    }
    if (labelsPart != null) {
      labelsPart.readFully(labelBytes, n);
      for (int r = 0; r < n; r++) {
        labels[r] = labelBytes[r] & 0xff;
      }
    }
    if (n == remaining) {
      // The last image: nothing may follow it in either file.
      images.requireEnd();
      if (labelsPart != null) {
        labelsPart.requireEnd();
      }
    }
    return n;
  }

  @Override
  public void close() throws IOException {
    try {
      images.in.close();
    } finally {
      if (labelsPart != null) {
        labelsPart.in.close();
      }
    }
  }

  /** One of the two files, counting the bytes read for truncation messages. */
  private static final class Part {
    final String name;
    final InputStream in;
    long bytesRead;
    long expectedBytes;

    Part(Path path, InputStream in) {
      this.name = path.toString();
      this.in = in;
    }

    /** Reads the magic and the dimensions, checking the magic and that sizes are >= 0. */
    int[] header(int magic, int dimensions, String kind) throws IOException {
      byte[] head = new byte[4 + 4 * dimensions];
      int got = in.readNBytes(head, 0, head.length);
      bytesRead += got;
      if (got < 4) {
        throw truncatedHeader(head.length, got);
      }
      int found = readInt(head, 0);
      if (found != magic) {
        throw new InputFormatException(
            String.format(
                "%s: magic number 0x%08X, expected 0x%08X for IDX %s%s",
                name, found, magic, kind, describeMagic(found)));
      }
      if (got < head.length) {
        throw truncatedHeader(head.length, got);
      }
      int[] sizes = new int[dimensions];
      for (int i = 0; i < dimensions; i++) {
        sizes[i] = readInt(head, 4 + 4 * i);
        if (sizes[i] < 0) {
          throw new InputFormatException(
              name
                  + ": dimension "
                  + i
                  + " of the header is "
                  + Integer.toUnsignedLong(sizes[i])
                  + ", too large");
        }
      }
      return sizes;
    }

    private InputFormatException truncatedHeader(int expected, int got) {
      return new InputFormatException(
          name + " is truncated: expected a " + expected + "-byte IDX header, found " + got
              + " bytes");
    }

    void readFully(byte[] into, int n) throws IOException {
      int off = 0;
      while (off < n) {
        int got;
        try {
          got = in.read(into, off, n - off);
        } catch (EOFException e) { // a gzip stream cut short
          throw truncated(e);
        }
        if (got < 0) {
          throw truncated(null);
        }
        off += got;
        bytesRead += got;
      }
    }

    /** After the last row: the content must end here (a longer file means a wrong header). */
    void requireEnd() throws IOException {
      int extra;
      try {
        extra = in.read();
      } catch (EOFException e) {
        throw truncated(e);
      }
      if (extra >= 0) {
        throw new InputFormatException(
            name
                + " is longer than its header says: expected "
                + expectedBytes
                + " bytes, found more");
      }
    }

    private InputFormatException truncated(Throwable cause) {
      return new InputFormatException(
          name
              + " is truncated: the header promises "
              + expectedBytes
              + " bytes, found "
              + bytesRead
              + (cause != null ? " (" + cause.getMessage() + ")" : ""),
          cause);
    }

    private static int readInt(byte[] b, int at) {
      return (b[at] & 0xff) << 24
          | (b[at + 1] & 0xff) << 16
          | (b[at + 2] & 0xff) << 8
          | (b[at + 3] & 0xff);
    }

    private static String describeMagic(int found) {
      if (found == LABELS_MAGIC) {
        return " (this looks like a labels file)";
      }
      if (found == IMAGES_MAGIC) {
        return " (this looks like an images file)";
      }
      return "";
    }
  }
}
