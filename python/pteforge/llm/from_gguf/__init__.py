"""pteforge.llm.from_gguf: GGUF files (llama.cpp's format) read into Hugging Face model
folders (reader.py; to_folder.py is its command line), so that pteforge.llm exports them
like any transformers causal LM; testing.py writes tiny GGUF files as llama.cpp's
converter does, for the tests and the tiny chat model.
"""
