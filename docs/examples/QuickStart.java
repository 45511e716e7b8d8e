// QuickStart: a placeholder until the example lands. The example fits a model on the shipped
// diamonds rows with the defaults, saves it, loads it, predicts raw heldout rows and prints the
// heldout MSE, through org.lprff.arrow.model.FittedModel. DocsTest keeps this file and the
// README's copy of it equal.
