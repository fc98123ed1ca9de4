// Package vector owns embeddings as recollect keeps them, both halves: a
// vector's space (Space) and stored bytes (Encode, Decode, Cosine); its
// sign code (SignCode, written beside the vector by StoreCode); the code
// and vector files that cache a space's codes and vectors in the data
// directory, written by WriteCodeFile after integrate's embedding step,
// removed by RemoveCodeFiles, and read back by LoadCodes and by Index, the
// in-memory index of sign codes a graph Reader keeps, which picks the
// candidates the semantic arm scores (CodeSet.Nearest).
//
// It computes no embedding (extract/model's Embedder does) and ranks
// nothing (graph's semantic arm does).
package vector
