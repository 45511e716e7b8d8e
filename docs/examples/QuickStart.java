import java.nio.file.Path;
import org.lprff.arrow.input.RowTable;
import org.lprff.arrow.model.Bandwidth;
import org.lprff.arrow.model.FittedModel;
import org.lprff.vector.codec.Quantizer;
import org.lprff.vector.featurize.FeaturizerSpec;
import org.lprff.vector.kernel.KernelFunction;

void main() throws Exception {
  // The diamonds rows shipped with lprff: 9 numeric columns, the price last; predict ln(price).
  RowTable all = RowTable.readCsv(Path.of("lprff-cli/src/main/resources/org/lprff/cli/diamonds.csv"), "last");
  RowTable[] split = all.logLabels("diamonds").split(1);                  // a seeded 80/20 split
  RowTable train = split[0], heldout = split[1];
  // 4,096 random Fourier features of a Gaussian kernel, each stored in 4 bits; its sigma (1 here)
  // is searched for on a validation split, as lprff fit does.
  FeaturizerSpec spec = new FeaturizerSpec(new KernelFunction.Gaussian(1.0), train.d(), 4096, 4,
      "circulant", 1L, Quantizer.STOCHASTIC);
  FittedModel model = FittedModel.fit(spec, train, Bandwidth.SEARCH); // sigma, l2 chosen
  model.save(Path.of("diamonds.lprff"));
  float[] predicted = FittedModel.load(Path.of("diamonds.lprff")).predict(heldout.x(), heldout.n());
  double mse = 0;
  for (int i = 0; i < heldout.n(); i++) {
    mse += (predicted[i] - heldout.y()[i]) * (predicted[i] - heldout.y()[i]) / heldout.n();
  }
  System.out.printf("sigma %.3g, l2 %.0e%n", model.spec().kernel().lengthScale(), model.l2());
  System.out.printf("heldout MSE %.5f%n", mse);
}
